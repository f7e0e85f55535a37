package quota

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/usageentry"
)

// An answer is metered in three steps (internal/quota/README.md). Under a
// token quota the ask reserves its tokens in its
// own transaction (ReserveAnswer) and the answer's end closes the
// reservation after the completion commits (SettleAnswer) or refunds it
// (Refund); the counters are locked before the conversation by every
// statement, so the completion transaction, which holds the
// conversation's lock, never moves them. Without a quota the completion
// transaction writes the answer's SETTLE and those of its side calls
// (RecordAnswerIn), so the ledger gains them exactly when the answer is
// saved.

// ReserveAnswer holds tokens for ch's answer in tx, the ask's transaction
// (Reserve); under a HARD quota that it would pass it is QUOTA_EXCEEDED
// and the caller rolls tx back, so nothing is written.
func (m *Meter) ReserveAnswer(ctx context.Context, tx *ent.Tx, ch Charge, now time.Time, tokens int64) error {
	_, err := m.Reserve(ctx, tx, ch.call(usageentry.PurposeANSWER, ch.Model), ch.Quota, now, tokens)
	return err
}

// RecordAnswerIn writes, through c, the client of the completion
// transaction, the SETTLE entries of ch's answer (model answered, using
// u) and of the side calls p holds, in one statement (RecordIn), when
// ch's quota limits nothing. Under a quota it writes nothing
// (SettleAnswer). The caller marks p Written once the transaction commits.
func (m *Meter) RecordAnswerIn(ctx context.Context, c *ent.Client, ch Charge, model string, u Usage, p *Pending, now time.Time) error {
	if ch.Quota.Enabled() {
		return nil
	}
	calls := append(p.held(), Charged{Call: ch.call(usageentry.PurposeANSWER, model), Usage: u})
	return m.RecordIn(ctx, c, now, calls...)
}

// SettleAnswer records ch's saved answer under a quota (model answered,
// using u): it closes the attempt's reservation with it, or charges it
// when there was none. Without a quota RecordAnswerIn wrote it. A
// reservation left open by a failure is the reaper's (Service.Reconcile).
func (m *Meter) SettleAnswer(ctx context.Context, ch Charge, model string, u Usage, now time.Time) error {
	if !ch.Quota.Enabled() {
		return nil
	}
	res, err := m.OpenReservation(ctx, ch.AttemptID)
	switch {
	case err != nil:
		return err
	case res != nil:
		_, err = m.Close(ctx, res, u, model, ch.Price, now)
		return err
	}
	return m.Charge(ctx, ch.call(usageentry.PurposeANSWER, model), u, ch.Quota, now)
}

// Refund gives back the open reservation of the answer of attempt id,
// which ended without one (failed, cancelled, interrupted); with none open
// it does nothing. A reservation left open by a failure is the reaper's.
func (m *Meter) Refund(ctx context.Context, id uuid.UUID, now time.Time) error {
	res, err := m.OpenReservation(ctx, id)
	if err == nil && res != nil {
		_, err = m.Close(ctx, res, Usage{}, "", nil, now)
	}
	return err
}

// Pending holds the usage of an answer's side calls (its rewrite, and
// whatever else it asks of the model before its answer is saved) while
// the tenant's quota limits nothing, so that the completion transaction
// writes them with the answer's own entry (RecordAnswerIn; docs/ENGINE.md,
// "Statements per ask"). What the answer did not write (it failed, or was
// cancelled) is written when its run ends (Flush); a call made after the
// answer was saved (a title, a summary) is charged at once. Under a quota
// every call is charged at once, since the counters must move with it.
// The calls are held in the run's memory only: a process that dies
// mid-answer loses them (its attempt ends INTERRUPTED, and a quota-less
// tenant's ledger misses that rewrite's tokens; under a quota nothing is
// held). A nil Pending holds nothing.
type Pending struct {
	mu    sync.Mutex
	calls []Charged
	done  bool
}

// add keeps c for the answer's transaction and reports true, or reports
// false once that transaction wrote what it held (charge c at once).
func (p *Pending) add(c Charged) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return false
	}
	p.calls = append(p.calls, c)
	return true
}

// held returns the calls kept so far.
func (p *Pending) held() []Charged {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Charged(nil), p.calls...)
}

// Written records that the calls held were written; later ones are
// charged at once.
func (p *Pending) Written() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls, p.done = nil, true
}

// Flush writes the side calls p holds that the answer's transaction did
// not write, when its run ends without a saved answer.
func (m *Meter) Flush(ctx context.Context, p *Pending, now time.Time) error {
	calls := p.held()
	if len(calls) == 0 {
		return nil
	}
	if err := m.RecordIn(ctx, m.client, now, calls...); err != nil {
		return err
	}
	p.Written()
	return nil
}
