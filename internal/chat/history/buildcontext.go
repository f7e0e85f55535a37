package history

import (
	"context"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/prompt"
	"github.com/ragchat/ragchat/internal/tracing"
)

// BuiltContext is the prompt context of one answer: the standalone
// question, and the evidence and history assembled from the authorised
// window under the tenant's token budget for the chat model.
type BuiltContext struct {
	Standalone      string
	RequiresHistory bool
	// Model is the chat model the context was budgeted for.
	Model string
	// MaxAnswer is the answer's token limit: what the model's window
	// leaves after the prompt, up to the tenant's maxAnswerTokens.
	MaxAnswer int
	// SummaryVersion is the version of the summary the window read.
	SummaryVersion int
	Assembled      prompt.Result
}

// ContextError tags a Build failure with what its step was reading
// ("conversation", "knowledge base"), for callers that report NOT_FOUND
// by kind.
type ContextError struct {
	Kind string
	Err  error
}

func (e *ContextError) Error() string { return e.Err.Error() }
func (e *ContextError) Unwrap() error { return e.Err }

// Build is the one context pipeline (docs/ENGINE.md, "Ask, step by
// step"): history window → rewrite → authorised retrieval → budgeted
// assembly. Answers and PreviewContext both use it, so what the benchmark
// measures is what the model gets.
func (a *Assembler) Build(ctx context.Context, req Request) (BuiltContext, error) {
	var bc BuiltContext
	afterRewrite := req.AfterRewrite
	timer := a.timeContext(&afterRewrite)
	early := retrieveEarly(ctx, req)
	defer early.drain()
	wctx, span := a.startSpan(ctx, "ask.window")
	win, err := a.loadWindow(wctx, req)
	if err != nil {
		endSpan(span, err)
		return bc, &ContextError{Kind: "conversation", Err: err}
	}
	span.SetAttributes(tracing.HistoryRounds.Int(len(win.rounds)))
	endSpan(span, nil)
	bc.SummaryVersion = win.summaryVersion
	sc := a.newRoundScorer(win)
	rctx, span := a.startSpan(ctx, "ask.rewrite")
	bc.Standalone, bc.RequiresHistory = a.rewrite(rctx, req, win, sc)
	span.SetAttributes(tracing.RequiresHistory.Bool(bc.RequiresHistory), tracing.Rewritten.Bool(bc.Standalone != req.Question))
	endSpan(span, nil)
	if afterRewrite != nil {
		if err := afterRewrite(bc.Standalone, bc.RequiresHistory); err != nil {
			return bc, err
		}
	}
	evidence, err := early.wait()
	if early == nil {
		evidence, err = req.Retrieve(ctx, bc.Standalone)
	}
	if err != nil {
		return bc, &ContextError{Kind: "knowledge base", Err: err}
	}
	st := req.Settings
	rounds, maxRounds, summary := win.rounds, win.plan.verbatim, win.summary
	var candidates []domain.RoundScore
	if win.plan.strategy == domain.StrategyPrioritized {
		rounds, candidates = sc.prioritize(ctx, bc.Standalone, win.plan.verbatim)
		summary = withPendingRounds(summary, notChosen(win.unfolded, candidates), st.SummaryMaxChars)
	}
	bc.Model = req.ChatModel
	_, span = a.startSpan(ctx, "ask.assemble")
	info := a.modelInfo(bc.Model, st)
	b := budgetFor(info, st)
	bc.Assembled = prompt.Assemble(prompt.Input{
		Question:       req.Question,
		Evidence:       evidence,
		Rounds:         rounds,
		Summary:        summary,
		SummaryVersion: win.summaryVersion,
		RevokedRounds:  win.revoked,
		Budget: prompt.Budget{
			Total:     b.usable,
			Framing:   chatFraming,
			Ratios:    st.BudgetRatios,
			MaxRounds: max(1, maxRounds),
		},
		Counter: info.Counter,
	})
	timer.done()
	m := &bc.Assembled.Manifest
	m.Strategy = win.plan.strategy
	m.Model, m.Window, m.AnswerReserve = info.Name, info.Window, b.reserve
	m.Candidates = candidates
	scoreRounds(m, candidates)
	namePath(m, win)
	bc.MaxAnswer = b.answerLimit(m.Tokens.Total)
	span.SetAttributes(manifestAttributes(m, len(bc.Assembled.Evidence))...)
	if over := m.Tokens.Total + minAnswerTokens - info.Window; over > 0 {
		// Only the never-cut rules and question can get here: a window
		// too small for them fails the attempt rather than overflow.
		err := llm.Errorf(llm.KindBadRequest, "model %q has a context window of %d tokens, too small for the rules and the question (%d tokens with the framing) plus an answer", info.Name, info.Window, m.Tokens.Total)
		endSpan(span, err)
		return bc, err
	}
	endSpan(span, nil)
	return bc, nil
}

// scoreRounds copies PRIORITIZED scores onto the manifest's rounds.
func scoreRounds(m *domain.ContextManifest, candidates []domain.RoundScore) {
	if len(candidates) == 0 {
		return
	}
	by := make(map[int64]float64, len(candidates))
	for _, c := range candidates {
		by[c.UserSeq] = c.Score
	}
	for i := range m.Rounds {
		if s, ok := by[m.Rounds[i].UserSeq]; ok {
			m.Rounds[i].Score = &s
		}
	}
}

// namePath records on the manifest the path the history came from: the
// message the question follows, the ids of the rounds carried, and the
// ancestor whose path summary was included.
func namePath(m *domain.ContextManifest, w window) {
	if w.parent != nil {
		m.ParentID = w.parent.String()
	}
	for _, r := range m.Rounds {
		if ids, ok := w.ids[r.UserSeq]; ok {
			m.HistoryMessageIDs = append(m.HistoryMessageIDs, ids[0].String(), ids[1].String())
		}
	}
	if m.SummaryIncluded && w.summaryMessage != nil {
		m.SummaryMessageID = w.summaryMessage.String()
	}
}
