package chat

import (
	"context"
	"sync"

	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/quota"
)

// sideCharges holds the usage of an answer's side calls (its rewrite,
// and whatever else it asks of the model before its answer is saved)
// while the tenant's quota limits nothing, so that the completion
// transaction writes them with the answer's own entry in one statement
// (quota.Meter.RecordIn; docs/ENGINE.md, "Statements per ask"). What the
// answer did not write (it failed, or was cancelled) is written when its
// run ends (flushSideCharges); a call made after the answer was saved
// (a title, a summary) is charged at once. Under a quota every call is
// charged at once, since the counters must move with it.
// The calls are held in the run's memory only: a process that dies
// mid-answer loses them (its attempt ends INTERRUPTED, and a quota-less
// tenant's ledger misses that rewrite's tokens; under a quota nothing is
// held).
type sideCharges struct {
	mu    sync.Mutex
	calls []quota.Charged
	done  bool
}

// add keeps c for the answer's transaction and reports true, or reports
// false once that transaction wrote what it held (charge c at once).
func (s *sideCharges) add(c quota.Charged) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return false
	}
	s.calls = append(s.calls, c)
	return true
}

// held returns the calls kept so far.
func (s *sideCharges) held() []quota.Charged {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]quota.Charged(nil), s.calls...)
}

// written records that the calls held were written; later ones are
// charged at once.
func (s *sideCharges) written() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls, s.done = nil, true
}

// answerUsage is the usage c's answer is charged with.
func answerUsage(c completion) quota.Usage {
	return quota.Usage{PromptTokens: c.usage.PromptTokens, CompletionTokens: c.usage.CompletionTokens}
}

// answerCall is the ledger call of j's answer with c's model.
func answerCall(j job, c completion) quota.Call {
	return j.model.charge.priced(quota.Call{TenantID: j.conv.TenantID, UserID: j.conv.UserID, AttemptID: &j.att.ID,
		Purpose: usageentry.PurposeANSWER, Model: c.model})
}

// flushSideCharges writes the side calls j's answer did not write,
// when its run ends without a saved answer. A failure is logged.
func (e *Engine) flushSideCharges(ctx context.Context, j job) {
	calls := j.side.held()
	if len(calls) == 0 {
		return
	}
	fctx, cancel := finalContext(ctx)
	defer cancel()
	if err := e.meter.RecordIn(fctx, e.client, e.now(), calls...); err != nil {
		e.log.ErrorContext(ctx, "usage not recorded", "attempt", j.att.ID, "err", err)
		return
	}
	j.side.written()
}
