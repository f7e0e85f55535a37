package history

import "time"

// ContextObserver receives how long each context assembly took
// (docs/ENGINE.md, "Ask, step by step": the window, the rewrite, the
// authorised retrieval and the budgeted assembly), without the answer's
// own step between rewrite and retrieval (saving both questions and
// publishing STARTED). The engine's Observer may implement it.
type ContextObserver interface {
	ContextAssembled(d time.Duration)
}

// contextTimer times one Build for a ContextObserver.
type contextTimer struct {
	obs      ContextObserver
	start    time.Time
	excluded time.Duration
}

// timeContext starts timing a context assembly and wraps *afterRewrite so
// that its time is left out. Without a ContextObserver it returns nil, and
// nil's done does nothing.
func (a *Assembler) timeContext(afterRewrite *func(standalone string, requires bool) error) *contextTimer {
	if a.Observer == nil {
		return nil
	}
	t := &contextTimer{obs: a.Observer, start: time.Now()}
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
