package chat

import (
	"context"

	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/quota"
)

// An answer's side calls (docs/ENGINE.md, "Quotas and the usage ledger")
// are metered like the answer: the rewrite of a follow-up (REWRITE), the
// generated title (TITLE) and the summary folds (SUMMARY) are each charged
// to the ledger (quota.Meter.Charge, a SETTLE, added to the quota's
// counters) with the tokens the model reported, or the local tokenizer's
// estimate when it reported none, and priced at the attempt's profile
// (profilePricing). They are asked of the attempt's model (answerModel:
// the profile's endpoint and model, else the server's), so every model
// call of an answer goes through the one resolver.

// meteredModel is the attempt's model, charging its rewrites, titles and
// summaries to the ledger.
type meteredModel struct {
	llm.Model
	e *Engine
	j job
}

// sideModel returns j's model with its side calls metered. A job without
// an attempt (PreviewContext, which saves nothing) is not metered.
func (e *Engine) sideModel(j job) llm.Model {
	m := j.model.llm
	if m == nil {
		m = e.model
	}
	if j.att == nil {
		return m
	}
	return meteredModel{Model: m, e: e, j: j}
}

// sideModelName is the chat model j's side calls name.
func (e *Engine) sideModelName(j job) string {
	if j.model.llm != nil && j.model.model != "" {
		return j.model.model
	}
	return e.chatModel(j.settings)
}

// Rewrite implements llm.Rewriter and charges a REWRITE.
func (m meteredModel) Rewrite(ctx context.Context, req llm.RewriteRequest) (llm.RewriteResult, error) {
	res, err := m.Model.Rewrite(ctx, req)
	if err == nil {
		m.charge(ctx, usageentry.PurposeREWRITE, res.Usage, rewriteText(req), res.StandaloneQuestion)
	}
	return res, err
}

// Title implements llm.Titler and charges a TITLE. A model that can name
// the chat model (llm.ModelTitler) is asked with the attempt's.
func (m meteredModel) Title(ctx context.Context, firstQuestion string) (string, error) {
	var (
		title string
		u     llm.Usage
		err   error
	)
	if mt, ok := m.Model.(llm.ModelTitler); ok {
		title, u, err = mt.TitleWith(ctx, m.e.sideModelName(m.j), firstQuestion)
	} else {
		title, err = m.Model.Title(ctx, firstQuestion)
	}
	if err == nil {
		m.charge(ctx, usageentry.PurposeTITLE, u, firstQuestion, title)
	}
	return title, err
}

// Summarize implements llm.Summarizer and charges a SUMMARY.
func (m meteredModel) Summarize(ctx context.Context, req llm.SummarizeRequest) (string, error) {
	out, err := m.Model.Summarize(ctx, req)
	if err == nil {
		m.charge(ctx, usageentry.PurposeSUMMARY, llm.Usage{}, summarizeText(req), out)
	}
	return out, err
}

// charge records one side call of purpose: u when the model reported
// usage, else the estimate of its prompt text in and its result out. A
// failure is logged; the call's result stands.
func (m meteredModel) charge(ctx context.Context, purpose usageentry.Purpose, u llm.Usage, in, out string) {
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		u = llm.Usage{PromptTokens: llm.EstimateTokens(in), CompletionTokens: llm.EstimateTokens(out), Estimated: true}
	}
	j := m.j
	call := quota.Call{TenantID: j.conv.TenantID, UserID: j.conv.UserID, Purpose: purpose,
		Model: m.e.sideModelName(j), Profile: j.model.charge.profileName()}
	call.AttemptID = &j.att.ID
	usage := quota.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	if !j.settings.Quota().Enabled() && j.side.add(quota.Charged{Call: call, Usage: usage}) {
		return // written with the answer (sidecharges.go)
	}
	fctx, cancel := finalContext(ctx)
	defer cancel()
	fctx = withProfileCharge(fctx, j.model.charge)
	if err := m.e.meter.Charge(fctx, call, usage, j.settings.Quota(), m.e.now()); err != nil {
		m.e.log.ErrorContext(ctx, "usage not recorded", "purpose", purpose, "conversation", j.conv.ID, "err", err)
	}
}

// rewriteText is the text a rewrite's prompt carries, for its estimate.
func rewriteText(req llm.RewriteRequest) string {
	s := req.Question + "\n" + req.Summary
	for _, r := range append(append([]llm.Round{}, req.Earlier...), req.History...) {
		s += "\n" + r.User + "\n" + r.Assistant
	}
	return s
}

// summarizeText is the text a summary's prompt carries, for its estimate.
func summarizeText(req llm.SummarizeRequest) string {
	s := req.Previous
	for _, it := range req.Items {
		s += "\n" + it.Question + "\n" + it.Outcome
	}
	for _, p := range req.Parts {
		s += "\n" + p
	}
	return s
}
