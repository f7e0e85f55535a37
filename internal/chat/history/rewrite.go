package history

import (
	"context"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
)

// rewrite turns a follow-up into a standalone retrieval question
// (docs/ENGINE.md D5). A cheap rule gate skips the model for questions
// that do not depend on history; the model sees only the authorised
// window, as the history strategy shows it (rewriteRequest). A failed
// rewrite degrades to the original question rather than failing the
// answer.
func (a *Assembler) rewrite(ctx context.Context, r Request, win window, sc *roundScorer) (string, bool) {
	req := rewriteRequest(ctx, r, win, sc)
	if !llm.NeedsHistory(r.Question, req.HasHistory()) {
		return r.Question, false
	}
	var rw llm.Rewriter = a.Model
	if r.Rewriter != nil {
		rw = r.Rewriter
	}
	res, err := rw.Rewrite(ctx, req)
	if err != nil || res.StandaloneQuestion == "" {
		if err != nil && ctx.Err() == nil {
			a.Log.WarnContext(ctx, "rewrite failed; using the original question", "attempt", r.AttemptID, "err", err)
		}
		fb := llm.FallbackRewrite(req)
		return fb.StandaloneQuestion, fb.RequiresHistory
	}
	return res.StandaloneQuestion, res.RequiresHistory
}

// rewriteRequest is what the rewrite of r's question sees of the window w:
// the history strategy decides it, as it decides what the answer prompt
// carries (docs/ENGINE.md, "History strategies" and D5). Every strategy
// shows the newest rounds read (at most HistoryRounds). The strategies
// that carry a summary add it (HYBRID and SEMANTIC_SUMMARY with the lines
// of the rounds not folded yet), and PRIORITIZED adds its older
// candidates, ranked by its own score against the question (sc), at most
// HistoryRounds. The rewriter chooses the follow-up's referent among all
// of these by what the follow-up mentions (llm.RewriteRequest). The
// candidates are ranked only for a question the rule gate sends to the
// rewriter; all of it comes from the window's one read.
func rewriteRequest(ctx context.Context, r Request, w window, sc *roundScorer) llm.RewriteRequest {
	req := llm.RewriteRequest{Question: r.Question, History: w.llmRounds(), Model: r.ChatModel}
	if w.plan.summary {
		req.Summary = w.summary
	}
	if w.plan.strategy != domain.StrategyPrioritized || !llm.NeedsHistory(req.Question, req.HasHistory()) {
		return req
	}
	for _, x := range sc.rankEarlier(ctx, req.Question, len(w.recent), w.plan.verbatim) {
		req.Earlier = append(req.Earlier, llm.Round{User: x.User, Assistant: x.Assistant})
	}
	return req
}
