package chat

import "time"

// ContextObserver is an optional part of Observer: it receives how long
// each context assembly took (docs/ENGINE.md, "Ask, step by step": the
// window, the rewrite, the authorised retrieval and the budgeted
// assembly), without the answer's own step between rewrite and retrieval
// (saving both questions and publishing STARTED).
type ContextObserver interface {
	ContextAssembled(d time.Duration)
}

// contextTimer times one buildContext for a ContextObserver.
type contextTimer struct {
	obs      ContextObserver
	start    time.Time
	excluded time.Duration
}

// timeContext starts timing a context assembly and wraps *afterRewrite so
// that its time is left out. Without a ContextObserver it returns nil, and
// nil's done does nothing.
func (e *Engine) timeContext(afterRewrite *func(standalone string, requires bool) error) *contextTimer {
	obs, ok := e.obs.(ContextObserver)
	if !ok {
		return nil
	}
	t := &contextTimer{obs: obs, start: time.Now()}
	if f := *afterRewrite; f != nil {
		*afterRewrite = func(standalone string, requires bool) error {
			t0 := time.Now()
			defer func() { t.excluded += time.Since(t0) }()
			return f(standalone, requires)
		}
	}
	return t
}

// done reports the assembly's time.
func (t *contextTimer) done() {
	if t != nil {
		t.obs.ContextAssembled(time.Since(t.start) - t.excluded)
	}
}
