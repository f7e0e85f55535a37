package openai

import (
	"context"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/ragchat/ragchat/internal/llm"
)

// Summarize asks the model to fold the items (user questions and their
// outcomes, never answers) into the previous summary, and cuts the result to
// MaxChars runes. It makes one attempt; retrying and falling back to the
// deterministic summary are the caller's business.
func (m *Model) Summarize(ctx context.Context, req llm.SummarizeRequest) (string, error) {
	limit := req.MaxChars
	if limit <= 0 {
		limit = llm.DefaultSummaryMaxChars
	}
	creq := goopenai.ChatCompletionRequest{
		Model: m.chatModel(req.Model),
		Messages: []goopenai.ChatCompletionMessage{
			{Role: goopenai.ChatMessageRoleSystem, Content: summarySystem(limit)},
			{Role: goopenai.ChatMessageRoleUser, Content: summaryUser(req)},
		},
	}
	m.setMaxTokens(&creq, limit*summaryTokensPerRune)
	text, _, err := m.complete(ctx, creq, false)
	if err != nil {
		return "", err
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", &llm.Error{Kind: llm.KindUpstream, Message: "empty summary"}
	}
	if r := []rune(text); len(r) > limit {
		text = string(r[:limit])
	}
	return text, nil
}
