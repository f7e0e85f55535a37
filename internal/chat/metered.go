package chat

import (
	"context"

	"github.com/ragchat/ragchat/ent"
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
// (profilePricing). Under a HARD quota each first reserves what it may
// use (hold), so that none passes the limit. They are asked of the
// attempt's model (answerModel:
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
	in := rewriteText(req)
	held, err := m.hold(ctx, usageentry.PurposeREWRITE, sideBound(in, req.Question))
	if err != nil {
		return llm.RewriteResult{}, err
	}
	res, err := m.Model.Rewrite(ctx, req)
	m.charge(ctx, held, err, usageentry.PurposeREWRITE, res.Usage, in, res.StandaloneQuestion)
	return res, err
}

// Title implements llm.Titler and charges a TITLE. A model that can name
// the chat model (llm.ModelTitler) is asked with the attempt's.
func (m meteredModel) Title(ctx context.Context, firstQuestion string) (string, error) {
	held, err := m.hold(ctx, usageentry.PurposeTITLE, sideBound(firstQuestion, firstQuestion))
	if err != nil {
		return "", err
	}
	var (
		title string
		u     llm.Usage
	)
	if mt, ok := m.Model.(llm.ModelTitler); ok {
		title, u, err = mt.TitleWith(ctx, m.e.sideModelName(m.j), firstQuestion)
	} else {
		title, err = m.Model.Title(ctx, firstQuestion)
	}
	m.charge(ctx, held, err, usageentry.PurposeTITLE, u, firstQuestion, title)
	return title, err
}

// Summarize implements llm.Summarizer and charges a SUMMARY.
func (m meteredModel) Summarize(ctx context.Context, req llm.SummarizeRequest) (string, error) {
	in := summarizeText(req)
	limit := req.MaxChars
	if limit <= 0 {
		limit = llm.DefaultSummaryMaxChars
	}
	held, err := m.hold(ctx, usageentry.PurposeSUMMARY, llm.EstimateTokens(in)+sideCallPrompt+2*limit)
	if err != nil {
		return "", err
	}
	out, err := m.Model.Summarize(ctx, req)
	m.charge(ctx, held, err, usageentry.PurposeSUMMARY, llm.Usage{}, in, out)
	return out, err
}

// A side call's reservation under a HARD quota bounds what it may be
// charged: the estimate of the text it is given, what its prompt adds to
// that (the instructions and the chat framing: sideCallPrompt covers
// every prompt of internal/llm/openai), and what it may write — a rewrite
// or a title at most its question and sideCallOutput more (the
// OpenAI-compatible client caps them at 300 and 40 tokens; the offline
// model writes the question with a topic, or a short title), a summary
// at most two tokens per character of its bound.
const (
	sideCallPrompt = 1024
	sideCallOutput = 300
)

// sideBound is the reservation of a rewrite or a title of question whose
// prompt carries in.
func sideBound(in, question string) int {
	return llm.EstimateTokens(in) + sideCallPrompt + llm.EstimateTokens(question) + sideCallOutput
}

// hold reserves bound tokens for a side call of purpose before it is
// made, under a HARD quota (under a SOFT one, or none, the call is
// charged when it returns: nothing refuses it), and returns the RESERVE
// entry (nil: nothing held). Its refusal is QUOTA_EXCEEDED, and the call
// is not made: the caller falls back (the question as asked, the
// question's title, the summary as it was), so the answer the quota
// admitted is never refused and the side call never passes the limit.
func (m meteredModel) hold(ctx context.Context, purpose usageentry.Purpose, bound int) (*ent.UsageEntry, error) {
	if !hardQuota(m.j.settings) {
		return nil, nil
	}
	res, err := m.e.meter.ReserveNow(ctx, m.call(purpose), m.j.settings.Quota(), m.e.now(), int64(bound))
	if err != nil {
		return nil, err
	}
	return res.Entry, nil
}

// call is the ledger call of j's side call of purpose.
func (m meteredModel) call(purpose usageentry.Purpose) quota.Call {
	j := m.j
	id := j.att.ID
	return j.model.charge.priced(quota.Call{TenantID: j.conv.TenantID, UserID: j.conv.UserID, AttemptID: &id, Purpose: purpose,
		Model: m.e.sideModelName(j)})
}

// charge records one side call of purpose that ended with callErr: u when
// the model reported usage, else the estimate of its prompt text in and
// its result out; it closes the call's reservation held with it (a
// REFUND when the call failed), or charges it. A failure is logged; the
// call's result stands.
func (m meteredModel) charge(ctx context.Context, held *ent.UsageEntry, callErr error, purpose usageentry.Purpose, u llm.Usage, in, out string) {
	if callErr != nil && held == nil {
		return
	}
	var usage quota.Usage
	if callErr == nil {
		if u.PromptTokens == 0 && u.CompletionTokens == 0 {
			u = llm.Usage{PromptTokens: llm.EstimateTokens(in), CompletionTokens: llm.EstimateTokens(out), Estimated: true}
		}
		usage = quota.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	}
	j := m.j
	call := m.call(purpose)
	if held == nil && !j.settings.Quota().Enabled() && j.side.add(quota.Charged{Call: call, Usage: usage}) {
		return // written with the answer (sidecharges.go)
	}
	fctx, cancel := finalContext(ctx)
	defer cancel()
	var err error
	if held != nil {
		_, err = m.e.meter.Close(fctx, held, usage, call.Model, call.Price, m.e.now())
	} else {
		err = m.e.meter.Charge(fctx, call, usage, j.settings.Quota(), m.e.now())
	}
	if err != nil {
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
