package chat

import (
	"context"
	"errors"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/store"
)

// errNotSaved ends an attempt whose finished answer could not be saved
// before CompletionRetryTimeout passed.
var errNotSaved = errors.New("the answer could not be saved: the database was unavailable")

// Backoff between completion writes: it starts short and stays short, so
// that an answer is saved within a second of the database's return. The
// lease does not depend on it: the checkpointer keeps renewing the lease
// meanwhile (generate), which is what keeps another instance's reaper off
// the attempt.
const (
	saveFirstDelay = 50 * time.Millisecond
	saveMaxDelay   = time.Second
	// saveWriteTimeout bounds one completion transaction.
	saveWriteTimeout = 15 * time.Second
)

// saveDurably saves a finished answer (saveCompletion, whose pending count
// it returns), retrying while the database is
// unavailable (docs/ENGINE.md, "Failure and recovery"). The completion is
// kept in memory meanwhile, the checkpointer keeps renewing the lease
// whenever the database answers, and nothing is published until the
// commit. It gives up with errNotSaved once CompletionRetryTimeout has
// passed, at once on an error that is not transient, and when the run is
// cancelled by the user, a deletion or shutdown, or loses its lease.
func (e *Engine) saveDurably(ctx context.Context, j job, c completion, first time.Time) (*ent.Attempt, int, error) {
	bound := time.NewTimer(e.cfg.CompletionRetryTimeout)
	defer bound.Stop()
	deadline := time.Now().Add(e.cfg.CompletionRetryTimeout)
	stopped := ctx.Done()
	delay := saveFirstDelay
	for try := 1; ; try++ {
		wdl := time.Now().Add(saveWriteTimeout)
		if deadline.Before(wdl) {
			wdl = deadline
		}
		wctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), wdl)
		att, pending, err := e.saveCompletion(wctx, j, c, first)
		cancel()
		if err == nil || errors.Is(err, errLeaseLost) || !store.IsTransient(err) {
			return att, pending, err
		}
		e.log.WarnContext(ctx, "answer not saved yet; retrying while the database is unavailable",
			"attempt", j.att.ID, "try", try, "err", err)
		wait := time.NewTimer(delay)
		for waiting := true; waiting; {
			select {
			case <-wait.C:
				waiting = false
			case <-bound.C:
				wait.Stop()
				return nil, 0, errors.Join(errNotSaved, err)
			case <-stopped:
				if stopsSaving(context.Cause(ctx)) {
					wait.Stop()
					return nil, 0, context.Cause(ctx)
				}
				stopped = nil // an answer timeout does not discard a finished answer
			}
		}
		delay = min(2*delay, saveMaxDelay)
	}
}

// stopsSaving reports whether a run's cancellation cause abandons a
// finished answer that is waiting for the database: the user cancelled,
// the conversation was deleted, the server is shutting down, or the
// attempt was ended elsewhere.
func stopsSaving(cause error) bool {
	return errors.Is(cause, errCancelledByUser) || errors.Is(cause, errDeleted) ||
		errors.Is(cause, errShuttingDown) || errors.Is(cause, errLeaseLost)
}
