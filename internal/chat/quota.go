package chat

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/chat/history"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/quota"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The engine meters answers with internal/quota (docs/ENGINE.md, "Quotas
// and the usage ledger"): an ask under a token quota reserves its prompt
// budget plus its answer limit in the ask's transaction, before anything
// is written, so a HARD quota's refusal writes nothing; the answer's end
// closes the reservation (SETTLE with the model's usage, REFUND when it
// failed, was cancelled or interrupted); answers without a quota are
// charged (a SETTLE) when they complete. The reaper closes what a crash
// left open.

// answerCap is the most an answer may write: the maxAnswerTokens its
// model parameters resolved to (the ask's, the conversation's or the
// profile's default, within the profile's maximum), else the tenant's.
// The reservation and the answer's own limit both use it.
func answerCap(st domain.TenantSettings, p domain.ModelParameters) int {
	if n := p.MaxAnswerTokens; n != nil {
		return *n
	}
	return st.MaxAnswerTokens
}

// askReservation is the tokens an answer reserves: the whole prompt
// budget and the answer cap (st's MaxAnswerTokens, answerCap applied),
// which bound what the call can use (answerTokens keeps it to them).
func askReservation(st domain.TenantSettings) int64 {
	return int64(st.PromptTokenBudget + st.MaxAnswerTokens)
}

// hardQuota reports whether st's quota refuses what would pass it.
func hardQuota(st domain.TenantSettings) bool {
	q := st.Quota().WithDefaults()
	return q.Enabled() && q.Kind == domain.QuotaHard
}

// answerTokens is the max_tokens of j's answer to the prompt bc: what the
// model's window leaves after the prompt, up to the answer cap
// (bc.MaxAnswer), and under a HARD quota no more than the reservation
// leaves after the prompt, so that prompt and answer together stay within
// what the ask reserved even when the never-cut rules and question passed
// the prompt budget. A prompt that leaves nothing of the reservation fails
// the attempt before the model is called (MODEL_ERROR, as a window too
// small for the question does).
func answerTokens(j job, bc history.BuiltContext) (int, error) {
	st := j.model.settings
	if !hardQuota(st) {
		return bc.MaxAnswer, nil
	}
	prompt := bc.Assembled.Manifest.Tokens.Total
	left := askReservation(st) - int64(prompt)
	if left < 1 {
		return 0, llm.Errorf(llm.KindBadRequest, "the rules and the question (%d tokens with the framing) leave no room for an answer within the %d tokens the token quota reserved", prompt, askReservation(st))
	}
	return int(min(int64(bc.MaxAnswer), left)), nil
}

// reserveAsk reserves the answer's tokens in the ask's transaction when
// the tenant has a token quota; it returns the id of the attempt the
// reservation is for (uuid.Nil without a quota). A HARD quota's refusal is
// QUOTA_EXCEEDED. The answer cap reserved is that of resolved, the
// attempt's model (answerCap), which is what the answer is then limited
// to.
func (e *Engine) reserveAsk(ctx context.Context, tx *ent.Tx, v *viewer.Viewer, st domain.TenantSettings, resolved *modelprofile.Resolved) (uuid.UUID, error) {
	if !st.Quota().Enabled() {
		return uuid.Nil, nil
	}
	id := uuid.Must(uuid.NewV7())
	call := quota.Call{TenantID: v.TenantID, UserID: v.UserID, AttemptID: &id, Purpose: usageentry.PurposeANSWER, Model: e.chatModel(st)}
	var charge *profileCharge
	if r := resolved; r != nil {
		if charge = chargeOf(*r); charge != nil && r.Model != "" {
			call.Model = r.Model
		}
		call = charge.priced(call)
		st.MaxAnswerTokens = answerCap(st, r.Params)
	}
	if _, err := e.meter.Reserve(ctx, tx, call, st.Quota(), e.now(), askReservation(st)); err != nil {
		return uuid.Nil, err
	}
	return id, nil
}

// meterAnswer records a saved answer's usage under a quota: it closes the
// attempt's reservation with it, or charges it when there was none.
// Without a quota the completion transaction wrote it (sidecharges.go).
func (e *Engine) meterAnswer(ctx context.Context, j job, c completion) {
	if !j.settings.Quota().Enabled() {
		return
	}
	u := answerUsage(c)
	res, err := e.meter.OpenReservation(ctx, j.att.ID)
	if err == nil && res != nil {
		_, err = e.meter.Close(ctx, res, u, c.model, j.model.charge.pricePtr(), e.now())
	}
	if err != nil {
		e.log.ErrorContext(ctx, "usage not settled; the reaper will", "attempt", j.att.ID, "err", err)
	}
	if err != nil || res != nil {
		return
	}
	if err := e.meter.Charge(ctx, answerCall(j, c), u, j.settings.Quota(), e.now()); err != nil {
		e.log.ErrorContext(ctx, "usage not recorded", "attempt", j.att.ID, "err", err)
	}
}

// refundAttempt gives back the open reservation of an attempt that ended
// without an answer (failed, cancelled, interrupted). A failure is left to
// the reaper's reconciliation.
func (e *Engine) refundAttempt(ctx context.Context, id uuid.UUID) {
	res, err := e.meter.OpenReservation(ctx, id)
	if err == nil && res != nil {
		_, err = e.meter.Close(ctx, res, quota.Usage{}, "", nil, e.now())
	}
	if err != nil {
		e.log.ErrorContext(ctx, "reservation not refunded; the reaper will", "attempt", id, "err", err)
	}
}

// ReconcileUsage closes the reservations a crash left open (docs/ENGINE.md,
// "Quotas and the usage ledger"): those older than the lease whose
// attempt has ended, or is gone. A COMPLETED attempt settles the usage it
// stored, at the price of its model profile if it had one; any other end
// is refunded. It returns how many it closed.
func (e *Engine) ReconcileUsage(ctx context.Context) (int, error) {
	ctx = viewer.SystemJobContext(ctx, viewer.JobReaper)
	open, err := e.client.UsageEntry.Query().
		Where(usageentry.KindEQ(usageentry.KindRESERVE), usageentry.Not(usageentry.HasClosedBy()),
			usageentry.AttemptIDNotNil(), usageentry.CreatedAtLT(e.now().Add(-e.cfg.LeaseDuration))).
		Limit(200).All(ctx)
	if err != nil || len(open) == 0 {
		return 0, err
	}
	ids := make([]uuid.UUID, len(open))
	for i, r := range open {
		ids[i] = *r.AttemptID
	}
	atts, err := e.client.Attempt.Query().Where(attempt.IDIn(ids...)).All(ctx)
	if err != nil {
		return 0, err
	}
	byID := make(map[uuid.UUID]*ent.Attempt, len(atts))
	for _, a := range atts {
		byID[a.ID] = a
	}
	n := 0
	for _, r := range open {
		a := byID[*r.AttemptID]
		var u quota.Usage
		var price *quota.Price
		model := ""
		switch {
		case r.Purpose != usageentry.PurposeANSWER:
			// A side call's (metered.go): its usage is unknown after a
			// crash, and it may outlive its attempt's lease (a title
			// after the answer), so it is refunded once no call can
			// still hold it.
			if r.CreatedAt.After(e.now().Add(-sideCallHold)) {
				continue
			}
		case a == nil:
			// Never written (the ask's transaction rolled back after the
			// reservation was read) or purged: nothing was used.
		case a.Status == attempt.StatusPENDING:
			continue
		case a.Status == attempt.StatusCOMPLETED:
			u = quota.Usage{PromptTokens: a.PromptTokens, CompletionTokens: a.CompletionTokens}
			if a.Model != nil {
				model = *a.Model
			}
			price = e.recordedPrice(ctx, r.TenantID, a)
		}
		closed, err := e.meter.Close(ctx, r, u, model, price, e.now())
		if err != nil {
			return n, err
		}
		if closed {
			n++
		}
	}
	return n, nil
}

// recordedPrice is the price of the model profile a's attempt recorded
// (nil: the server model's list price, also when the profile is not
// read, which is logged), as its run would have settled it.
func (e *Engine) recordedPrice(ctx context.Context, tenantID string, a *ent.Attempt) *quota.Price {
	if e.profiles == nil || a.ModelProfileID == nil {
		return nil
	}
	r, err := e.profiles.Recorded(ctx, tenantID, a.ModelProfileID, a.ModelParameters)
	if err != nil {
		e.log.WarnContext(ctx, "model profile not read; the answer is settled at the list price", "attempt", a.ID, "err", err)
		return nil
	}
	return chargeOf(r).pricePtr()
}

// MyUsage is the viewer's standing against the tenant's token quota in
// the current period (docs/API.md, "Quotas and usage").
type MyUsage struct {
	// Used is the tokens the viewer's settled calls used this period,
	// Reserved what their running answers hold.
	Used, Reserved int64
	// Granted is what admins granted the viewer this period (GRANT
	// entries): it adds to Limit.
	Granted int64
	// Limit is the viewer's per-user limit (an admin's override of it
	// first, else the tenant's setting), nil when none; TenantLimit the
	// tenant's, with TenantUsed (settled and reserved) beside it.
	Limit, TenantLimit *int64
	TenantUsed         int64
	// Period (DAILY, MONTHLY) and Kind (HARD, SOFT) of the quota, empty
	// without one; ResetsAt is the end of the period.
	Period, Kind string
	ResetsAt     *time.Time
	// OverSoftLimit reports that a SOFT limit is passed.
	OverSoftLimit bool
}

// MyUsage returns the viewer's usage in the current quota period. Without
// a quota, Used sums the viewer's settled entries of the current UTC day.
func (e *Engine) MyUsage(ctx context.Context) (*MyUsage, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	st, err := e.settings(ctx)
	if err != nil {
		return nil, err
	}
	now := e.now()
	q := st.Quota()
	if !q.Enabled() {
		start := quota.PeriodStart(domain.QuotaDaily, now)
		es, err := e.client.UsageEntry.Query().
			Where(usageentry.UserID(v.UserID), usageentry.KindEQ(usageentry.KindSETTLE), usageentry.CreatedAtGTE(start)).
			All(ctx)
		if err != nil {
			return nil, store.DomainError(err, "usage")
		}
		u := &MyUsage{}
		for _, en := range es {
			u.Used += int64(en.PromptTokens + en.CompletionTokens)
		}
		return u, nil
	}
	q, err = e.meter.Effective(ctx, v.TenantID, v.UserID, q)
	if err != nil {
		return nil, store.DomainError(err, "usage")
	}
	q = q.WithDefaults()
	tot, err := e.meter.Read(ctx, v.TenantID, v.UserID, q, now)
	if err != nil {
		return nil, store.DomainError(err, "usage")
	}
	end := quota.PeriodEnd(q.Period, quota.PeriodStart(q.Period, now))
	u := &MyUsage{Used: tot.UserUsed, Reserved: tot.UserReserved, TenantUsed: tot.TenantUsed + tot.TenantReserved,
		Granted: tot.UserGranted, Period: q.Period, Kind: q.Kind, ResetsAt: &end}
	if q.UserTokens > 0 {
		u.Limit = &q.UserTokens
		u.OverSoftLimit = q.Kind == domain.QuotaSoft && tot.UserUsed+tot.UserReserved > q.UserTokens+tot.UserGranted
	}
	if q.TenantTokens > 0 {
		u.TenantLimit = &q.TenantTokens
		u.OverSoftLimit = u.OverSoftLimit || (q.Kind == domain.QuotaSoft && u.TenantUsed > q.TenantTokens)
	}
	return u, nil
}
