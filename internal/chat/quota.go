package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/chat/history"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/quota"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The engine meters answers with internal/quota (docs/ENGINE.md, "Quotas
// and the usage ledger"): an ask under a token quota reserves its prompt
// budget plus its answer limit in the ask's transaction, before anything
// is written, so a HARD quota's refusal writes nothing; the answer's end
// closes the reservation (SETTLE with the model's usage, REFUND when it
// failed, was cancelled or interrupted); answers without a quota are
// charged (a SETTLE) when they complete. The reaper closes what a crash
// left open (quota.Service.Reconcile, run as Deps.ReconcileUsage).

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
