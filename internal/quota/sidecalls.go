package quota

import (
	"context"
	"log/slog"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/llm"
)

// An answer's side calls (internal/quota/README.md)
// are metered like the answer: the rewrite of a follow-up (REWRITE), the
// generated title (TITLE) and the summary folds (SUMMARY) are each charged
// to the ledger (Charge, a SETTLE, added to the quota's counters, or held
// for the answer's transaction: Pending) with the tokens the model
// reported, or the local tokenizer's estimate when it reported none, at
// the answer's Charge (its profile's prices). Under a HARD quota each
// first reserves what it may use (hold), so that none passes the limit.

// SideCalls is how an answer's side calls are metered.
type SideCalls struct {
	// Charge is the answer's; its Model is what the side calls name.
	Charge Charge
	// Pending holds the calls for the answer's completion transaction
	// (nil: each is charged at once).
	Pending *Pending
	// Now is the clock of the entries (nil: time.Now).
	Now func() time.Time
	// Log receives the failures to record usage (nil: slog.Default()).
	Log *slog.Logger
}

// Metered returns model with its side calls (Rewrite, Title, Summarize)
// metered as s says.
func (m *Meter) Metered(model llm.Model, s SideCalls) llm.Model {
	s.Now = defaults.Clock(s.Now)
	s.Log = defaults.Logger(s.Log)
	return metered{Model: model, meter: m, s: s}
}

// metered is a model whose rewrites, titles and summaries are charged to
// the ledger.
type metered struct {
	llm.Model
	meter *Meter
	s     SideCalls
}

// Rewrite implements llm.Rewriter and charges a REWRITE.
func (m metered) Rewrite(ctx context.Context, req llm.RewriteRequest) (llm.RewriteResult, error) {
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
// the chat model (llm.ModelTitler) is asked with the charge's.
func (m metered) Title(ctx context.Context, firstQuestion string) (string, error) {
	held, err := m.hold(ctx, usageentry.PurposeTITLE, sideBound(firstQuestion, firstQuestion))
	if err != nil {
		return "", err
	}
	var (
		title string
		u     llm.Usage
	)
	if mt, ok := m.Model.(llm.ModelTitler); ok {
		title, u, err = mt.TitleWith(ctx, m.s.Charge.Model, firstQuestion)
	} else {
		title, err = m.Model.Title(ctx, firstQuestion)
	}
	m.charge(ctx, held, err, usageentry.PurposeTITLE, u, firstQuestion, title)
	return title, err
}

// Summarize implements llm.Summarizer and charges a SUMMARY.
func (m metered) Summarize(ctx context.Context, req llm.SummarizeRequest) (string, error) {
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
func (m metered) hold(ctx context.Context, purpose usageentry.Purpose, bound int) (*ent.UsageEntry, error) {
	ch := m.s.Charge
	if !Hard(ch.Quota) {
		return nil, nil
	}
	res, err := m.meter.ReserveNow(ctx, ch.call(purpose, ch.Model), ch.Quota, m.s.Now(), int64(bound))
	if err != nil {
		return nil, err
	}
	return res.Entry, nil
}

// charge records one side call of purpose that ended with callErr: u when
// the model reported usage, else the estimate of its prompt text in and
// its result out; it closes the call's reservation held with it (a
// REFUND when the call failed), or charges it. A failure is logged; the
// call's result stands.
func (m metered) charge(ctx context.Context, held *ent.UsageEntry, callErr error, purpose usageentry.Purpose, u llm.Usage, in, out string) {
	if callErr != nil && held == nil {
		return
	}
	var usage Usage
	if callErr == nil {
		if u.PromptTokens == 0 && u.CompletionTokens == 0 {
			u = llm.Usage{PromptTokens: llm.EstimateTokens(in), CompletionTokens: llm.EstimateTokens(out), Estimated: true}
		}
		usage = Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	}
	ch := m.s.Charge
	call := ch.call(purpose, ch.Model)
	if held == nil && !ch.Quota.Enabled() && m.s.Pending.add(Charged{Call: call, Usage: usage}) {
		return // written with the answer (RecordAnswerIn)
	}
	fctx, cancel := detached(ctx)
	defer cancel()
	var err error
	if held != nil {
		_, err = m.meter.Close(fctx, held, usage, call.Model, call.Price, m.s.Now())
	} else {
		err = m.meter.Charge(fctx, call, usage, ch.Quota, m.s.Now())
	}
	if err != nil {
		m.s.Log.ErrorContext(ctx, "usage not recorded", "purpose", purpose, "attempt", ch.AttemptID, "err", err)
	}
}

// detached is ctx without its cancellation, bounded to 15 seconds (as the
// engine's final writes): a side call cancelled with its run is still
// recorded.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
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
