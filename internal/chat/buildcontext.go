package chat

import (
	"context"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/prompt"
)

// builtContext is the prompt context of one answer: the authorised history
// window, the standalone question, and the evidence and history assembled
// under the tenant's token budget for the chat model.
type builtContext struct {
	win        window
	standalone string
	requires   bool
	model      string
	// maxAnswer is the answer's token limit: what the model's window leaves
	// after the prompt, up to the tenant's maxAnswerTokens.
	maxAnswer int
	assembled prompt.Result
}

// contextError tags a buildContext failure with what its step was
// reading, for callers that report NOT_FOUND by kind.
type contextError struct {
	kind string
	err  error
}

func (e *contextError) Error() string { return e.err.Error() }
func (e *contextError) Unwrap() error { return e.err }

// buildContext is the one context pipeline (docs/ENGINE.md, "Ask, step by
// step"): history window → rewrite → authorised retrieval → budgeted
// assembly. Answers and PreviewContext both use it, so what the benchmark
// measures is what the model gets. afterRewrite, when not nil, runs between
// the rewrite and the retrieval (an answer saves both questions and
// publishes STARTED there); its error stops the build.
func (e *Engine) buildContext(ctx context.Context, j job, afterRewrite func(standalone string, requires bool) error) (builtContext, error) {
	var bc builtContext
	timer := e.timeContext(&afterRewrite)
	early := e.retrieveEarly(ctx, j)
	defer early.drain()
	win, err := e.loadWindow(ctx, j)
	if err != nil {
		return bc, &contextError{kind: "conversation", err: err}
	}
	bc.win = win
	sc := e.newRoundScorer(win)
	bc.standalone, bc.requires = e.rewrite(ctx, j, win, sc)
	if afterRewrite != nil {
		if err := afterRewrite(bc.standalone, bc.requires); err != nil {
			return bc, err
		}
	}
	evidence, err := early.wait()
	if early == nil {
		evidence, err = e.retrieve(ctx, j, bc.standalone)
	}
	if err != nil {
		return bc, &contextError{kind: "knowledge base", err: err}
	}
	st := j.settings
	rounds, maxRounds, summary := win.rounds, win.plan.verbatim, win.summary
	var candidates []domain.RoundScore
	if win.plan.strategy == domain.StrategyPrioritized {
		rounds, candidates = sc.prioritize(ctx, bc.standalone, win.plan.verbatim)
		summary = withPendingRounds(summary, notChosen(win.unfolded, candidates), st.SummaryMaxChars)
	}
	bc.model = e.chatModel(st)
	info := e.modelInfo(bc.model, st)
	b := budgetFor(info, st)
	bc.assembled = prompt.Assemble(prompt.Input{
		Question:       j.msg.Content,
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
	m := &bc.assembled.Manifest
	m.Strategy = win.plan.strategy
	m.Model, m.Window, m.AnswerReserve = info.Name, info.Window, b.reserve
	m.Candidates = candidates
	scoreRounds(m, candidates)
	bc.maxAnswer = b.answerLimit(m.Tokens.Total)
	if over := m.Tokens.Total + minAnswerTokens - info.Window; over > 0 {
		// Only the never-cut rules and question can get here: a window
		// too small for them fails the attempt rather than overflow.
		return bc, llm.Errorf(llm.KindBadRequest, "model %q has a context window of %d tokens, too small for the rules and the question (%d tokens with the framing) plus an answer", info.Name, info.Window, m.Tokens.Total)
	}
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
