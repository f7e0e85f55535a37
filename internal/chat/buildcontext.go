package chat

import (
	"context"

	"github.com/ragchat/ragchat/internal/prompt"
	"github.com/ragchat/ragchat/internal/tokens"
)

// builtContext is the prompt context of one answer: the authorised history
// window, the standalone question, and the evidence and history assembled
// under the tenant's token budget for the chat model.
type builtContext struct {
	win        window
	standalone string
	requires   bool
	model      string
	assembled  prompt.Result
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
	win, err := e.loadWindow(ctx, j)
	if err != nil {
		return bc, &contextError{kind: "conversation", err: err}
	}
	bc.win = win
	bc.standalone, bc.requires = e.rewrite(ctx, j, win)
	if afterRewrite != nil {
		if err := afterRewrite(bc.standalone, bc.requires); err != nil {
			return bc, err
		}
	}
	evidence, err := e.retrieve(ctx, j, bc.standalone)
	if err != nil {
		return bc, &contextError{kind: "knowledge base", err: err}
	}
	bc.model = e.chatModel(j.settings)
	bc.assembled = prompt.Assemble(prompt.Input{
		Question:       j.msg.Content,
		Evidence:       evidence,
		Rounds:         win.rounds,
		Summary:        win.summary,
		SummaryVersion: win.summaryVersion,
		RevokedRounds:  win.revoked,
		Budget: prompt.Budget{
			Total:     j.settings.PromptTokenBudget,
			History:   int(float64(j.settings.PromptTokenBudget) * j.settings.BudgetRatios.History),
			MaxRounds: win.maxRounds,
		},
		Counter: tokens.ForModel(bc.model),
	})
	return bc, nil
}
