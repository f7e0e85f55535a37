package history

import (
	"context"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/prompt"
)

// earlyRetrieval is a retrieval started before the history window is
// loaded (docs/ENGINE.md, "Ask, step by step"). A question that the
// rewrite's rule gate would not send to the model even with history is its
// own standalone question, so its evidence does not depend on the window
// and both can be read at once: the first token then waits for the longer
// of the two, not for their sum.
type earlyRetrieval struct {
	done     chan struct{}
	cancel   context.CancelFunc
	evidence []prompt.Evidence
	err      error
	taken    bool
}

// retrieveEarly starts req's retrieval when the question cannot need
// history, else it returns nil (and Build retrieves after the rewrite).
func retrieveEarly(ctx context.Context, req Request) *earlyRetrieval {
	if llm.NeedsHistory(req.Question, true) {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &earlyRetrieval{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(r.done)
		r.evidence, r.err = req.Retrieve(ctx, req.Question)
	}()
	return r
}

// wait returns the early retrieval's result; on a nil r it returns
// nothing.
func (r *earlyRetrieval) wait() ([]prompt.Evidence, error) {
	if r == nil {
		return nil, nil
	}
	<-r.done
	r.cancel()
	r.taken = true
	return r.evidence, r.err
}

// drain cancels and waits for a retrieval whose result was not taken (the
// window or the rewrite failed), so that no goroutine outlives the build.
func (r *earlyRetrieval) drain() {
	if r != nil && !r.taken {
		r.cancel()
		<-r.done
	}
}
