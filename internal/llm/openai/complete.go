package openai

import (
	"context"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/ragchat/ragchat/internal/llm"
)

// complete makes a non-streaming chat completion and returns its text.
// With retry false it makes exactly one attempt.
func (m *Model) complete(ctx context.Context, creq goopenai.ChatCompletionRequest, retry bool) (string, llm.Usage, error) {
	reqCtx, cancel := m.requestContext(ctx)
	defer cancel()
	var resp goopenai.ChatCompletionResponse
	op := func() (err error) {
		resp, err = attemptOnce(ctx, reqCtx, func(actx context.Context) (goopenai.ChatCompletionResponse, error) {
			return m.client.CreateChatCompletion(actx, creq)
		})
		return err
	}
	var err error
	if retry {
		err = m.withRetry(ctx, reqCtx, op)
	} else {
		err = op()
	}
	if err != nil {
		return "", llm.Usage{}, err
	}
	if len(resp.Choices) == 0 {
		return "", llm.Usage{}, &llm.Error{Kind: llm.KindUpstream, Message: "completion has no choices"}
	}
	text := strings.TrimSpace(resp.Choices[0].Message.Content)
	u := fromUsage(resp.Usage)
	if u.TotalTokens == 0 {
		msgs := make([]llm.Message, len(creq.Messages))
		for i, cm := range creq.Messages {
			msgs[i] = llm.Message{Role: llm.Role(cm.Role), Content: cm.Content}
		}
		u = llm.EstimateUsage(msgs, text)
	}
	// A provider that ignores max_tokens is held to it: the text is cut
	// and at most the bound is charged, so that a side call stays within
	// what a HARD token quota reserved for it.
	if lim := max(creq.MaxTokens, creq.MaxCompletionTokens); lim > 0 && u.CompletionTokens > lim {
		text = withinTokens("", text, lim)
		u.CompletionTokens = lim
		u.TotalTokens = u.PromptTokens + lim
	}
	return text, u, nil
}
