package chat

// WaitIdle waits until e runs no answer and no work after one (summary,
// title), so that tests count a deterministic set of statements.
func WaitIdle(e *Engine) { e.waitIdle() }
