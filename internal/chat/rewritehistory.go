package chat

import (
	"context"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
)

// rewriteRequest is what the rewrite of j's question sees of the window w:
// the history strategy decides it, as it decides what the answer prompt
// carries (docs/ENGINE.md, "History strategies" and D5). Every strategy
// shows the newest rounds read (at most HistoryRounds). The strategies
// that carry a summary add it (HYBRID and SEMANTIC_SUMMARY with the lines
// of the rounds not folded yet), and PRIORITIZED adds its older
// candidates, ranked by its own score against the question (sc), for a
// follow-up whose reference the newest rounds do not resolve. The
// candidates are ranked only for a question the rule gate sends to the
// rewriter; all of it comes from the window's one read.
func (e *Engine) rewriteRequest(ctx context.Context, j job, w window, sc *roundScorer) llm.RewriteRequest {
	req := llm.RewriteRequest{Question: j.msg.Content, History: w.llmRounds(), Model: e.chatModel(j.settings)}
	if w.plan.summary {
		req.Summary = w.summary
	}
	if w.plan.strategy != domain.StrategyPrioritized || !llm.NeedsHistory(req.Question, req.HasHistory()) {
		return req
	}
	for _, r := range sc.rankEarlier(ctx, req.Question, len(w.recent), w.plan.verbatim) {
		req.Earlier = append(req.Earlier, llm.Round{User: r.User, Assistant: r.Assistant})
	}
	return req
}
