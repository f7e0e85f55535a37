package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/chat/history"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/quota"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The engine meters answers with internal/quota's Meter
// (internal/quota/README.md), always with an explicit quota.Charge
// (the tenant, user, attempt, model, profile prices and quota; built in
// reserveAsk and modelOf): an ask under a token quota reserves its prompt
// budget plus its answer limit in the ask's transaction, before anything
// is written, so a HARD quota's refusal writes nothing; the answer's end
// closes the reservation (SettleAnswer with the model's usage, Refund when
// it failed, was cancelled or interrupted); answers without a quota are
// charged with their side calls in the completion transaction
// (RecordAnswerIn). The reaper closes what a crash left open
// (quota.Service.Reconcile, run as Deps.ReconcileUsage). This file keeps
// what the engine decides itself: the answer's cap and reservation, and
// the metered side model.

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
	if !quota.Hard(st.Quota()) {
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
// the tenant has a token quota (quota.Meter.ReserveAnswer); it returns the
// id of the attempt the reservation is for (uuid.Nil without a quota). A
// HARD quota's refusal is QUOTA_EXCEEDED. The answer cap reserved is that
// of resolved, the attempt's model (answerCap), which is what the answer
// is then limited to, and the reservation is priced at its profile.
func (e *Engine) reserveAsk(ctx context.Context, tx *ent.Tx, v *viewer.Viewer, st domain.TenantSettings, resolved *modelprofile.Resolved) (uuid.UUID, error) {
	if !st.Quota().Enabled() {
		return uuid.Nil, nil
	}
	ch := quota.Charge{TenantID: v.TenantID, UserID: v.UserID, AttemptID: uuid.Must(uuid.NewV7()), Model: e.chatModel(st), Quota: st.Quota()}
	if r := resolved; r != nil {
		ch = ch.Profiled(*r)
		st.MaxAnswerTokens = answerCap(st, r.Params)
	}
	if err := e.meter.ReserveAnswer(ctx, tx, ch, e.now(), askReservation(st)); err != nil {
		return uuid.Nil, err
	}
	return ch.AttemptID, nil
}

// sideModel returns j's model with its side calls (rewrite, title,
// summary) metered at j's charge (quota.Meter.Metered), held for the
// completion transaction in j.side while the quota limits nothing. They
// are asked of the attempt's model (answerModel: the profile's endpoint
// and model, else the server's), so every model call of an answer goes
// through the one resolver. A job without an attempt (PreviewContext,
// which saves nothing) is not metered.
func (e *Engine) sideModel(j job) llm.Model {
	m := j.model.llm
	if m == nil {
		m = e.model
	}
	if j.att == nil {
		return m
	}
	return e.meter.Metered(m, quota.SideCalls{Charge: j.model.charge, Pending: j.side, Now: e.now, Log: e.log})
}

// answerUsage is the usage c's answer is charged with.
func answerUsage(c completion) quota.Usage {
	return quota.Usage{PromptTokens: c.usage.PromptTokens, CompletionTokens: c.usage.CompletionTokens}
}
