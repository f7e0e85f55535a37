package chat

// WaitIdle waits until e runs no answer and no work after one (summary,
// title), so that tests count a deterministic set of statements.
func WaitIdle(e *Engine) { e.waitIdle() }

// HoldRuns makes every answer run started from now on wait, before its
// first statement, until the returned release is called (once per run),
// so that tests can count the statements of an ask call alone.
func HoldRuns(e *Engine) (release func()) {
	gate := make(chan struct{})
	e.mu.Lock()
	e.beforeRun = func() { <-gate }
	e.mu.Unlock()
	return func() { gate <- struct{}{} }
}
