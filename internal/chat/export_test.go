package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/admission"
	"github.com/ragchat/ragchat/internal/chat/summary"
	"github.com/ragchat/ragchat/internal/sourceauth"
	"github.com/ragchat/ragchat/internal/tenantsettings"
)

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

// LiveSources is what a stream of attemptID shows the subscriber in ctx of
// the live SOURCES event carrying srcs, under the current access stamp.
func LiveSources(ctx context.Context, e *Engine, attemptID uuid.UUID, srcs []*ent.Source) ([]sourceauth.View, error) {
	return e.liveSources(ctx, attemptID, srcs, e.access.ViewerStamp(ctx))
}

// SummarizeNow runs one summariser pass over conversation id with the
// viewer's tenant settings, as the engine does after an answer.
func SummarizeNow(ctx context.Context, e *Engine, id uuid.UUID) error {
	st, err := tenantsettings.Effective(ctx, e.client)
	if err != nil {
		return err
	}
	return e.summarizer.Fold(ctx, id, st, summary.Model{Name: e.chatModel(st)})
}

// AdmissionStats returns how many answers e runs under its admission
// bound and how many asks wait for one (both 0 without a bound).
func AdmissionStats(e *Engine) admission.Stats { return e.gate.Stats() }
