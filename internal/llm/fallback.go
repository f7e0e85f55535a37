package llm

import "strings"

// FallbackRewrite is the rewrite result to use when rewriting failed or
// produced nothing usable: the original question, with RequiresHistory
// taken from the NeedsHistory rule gate.
func FallbackRewrite(req RewriteRequest) RewriteResult {
	q := strings.TrimSpace(req.Question)
	return RewriteResult{
		RequiresHistory:    NeedsHistory(q, req.HasHistory()),
		StandaloneQuestion: q,
	}
}
