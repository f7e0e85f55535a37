package openai

import (
	"context"
	"encoding/json"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/ragchat/ragchat/internal/llm"
)

// maxStandaloneRunes rejects rewrites that are far longer than any
// question (a sign of an answer or of injected text).
const maxStandaloneRunes = 500

// Rewrite asks the model for a standalone question as JSON
// ({"requiresHistory": bool, "standaloneQuestion": string}). Malformed or
// implausible output falls back to llm.FallbackRewrite (the original
// question) instead of failing; transport errors are returned (callers
// normally fall back the same way). Without history the question is
// returned unchanged with no call.
func (m *Model) Rewrite(ctx context.Context, req llm.RewriteRequest) (llm.RewriteResult, error) {
	if !req.HasHistory() || strings.TrimSpace(req.Question) == "" {
		return llm.FallbackRewrite(req), nil
	}
	creq := goopenai.ChatCompletionRequest{
		Model: m.chatModel(req.Model),
		Messages: []goopenai.ChatCompletionMessage{
			{Role: goopenai.ChatMessageRoleSystem, Content: rewriteSystem},
			{Role: goopenai.ChatMessageRoleUser, Content: rewriteUser(req)},
		},
		ResponseFormat: &goopenai.ChatCompletionResponseFormat{Type: goopenai.ChatCompletionResponseFormatTypeJSONObject},
	}
	m.setMaxTokens(&creq, rewriteMaxTokens)
	text, usage, err := m.complete(ctx, creq, true)
	if err != nil {
		return llm.RewriteResult{}, err
	}
	res := parseRewrite(text, req)
	res.Usage = usage
	return res, nil
}

// parseRewrite reads the model's JSON, tolerating code fences and prose
// around it. Anything unusable yields llm.FallbackRewrite(req).
func parseRewrite(text string, req llm.RewriteRequest) llm.RewriteResult {
	fallback := llm.FallbackRewrite(req)
	start, end := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if start < 0 || end <= start {
		return fallback
	}
	var out struct {
		RequiresHistory    *bool  `json:"requiresHistory"`
		StandaloneQuestion string `json:"standaloneQuestion"`
	}
	if err := json.Unmarshal([]byte(text[start:end+1]), &out); err != nil || out.RequiresHistory == nil {
		return fallback
	}
	q := strings.TrimSpace(out.StandaloneQuestion)
	if !*out.RequiresHistory {
		// An independent question is kept verbatim (docs/ENGINE.md D5, last rule).
		return llm.RewriteResult{StandaloneQuestion: strings.TrimSpace(req.Question)}
	}
	if q == "" || len([]rune(q)) > maxStandaloneRunes {
		return fallback
	}
	return llm.RewriteResult{RequiresHistory: true, StandaloneQuestion: q}
}
