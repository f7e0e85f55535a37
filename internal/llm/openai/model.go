package openai

import (
	"context"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/ragchat/ragchat/internal/llm"
)

// Model is the OpenAI-compatible llm.Model. It is safe for concurrent use.
type Model struct {
	cfg    Config
	client *goopenai.Client
	// embedder sends the embeddings requests: client, or one of its own
	// for Config.EmbeddingBaseURL or Config.EmbeddingAPIKey.
	embedder *goopenai.Client
	// sleep waits between retries; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ llm.Model = (*Model)(nil)

// Name returns "openai".
func (m *Model) Name() string { return "openai" }

// DefaultChatModel returns the configured chat model.
func (m *Model) DefaultChatModel() string { return m.cfg.ChatModel }

// EmbeddingModel returns the configured embedding model.
func (m *Model) EmbeddingModel() string { return m.cfg.EmbeddingModel }

func (m *Model) chatModel(requested string) string {
	if requested != "" {
		return requested
	}
	return m.cfg.ChatModel
}

func toMessages(msgs []llm.Message) []goopenai.ChatCompletionMessage {
	out := make([]goopenai.ChatCompletionMessage, len(msgs))
	for i, m := range msgs {
		out[i] = goopenai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content}
	}
	return out
}

// chatRequest builds a go-openai chat request.
func (m *Model) chatRequest(req llm.ChatRequest) goopenai.ChatCompletionRequest {
	r := goopenai.ChatCompletionRequest{
		Model:       m.chatModel(req.Model),
		Messages:    toMessages(req.Messages),
		Temperature: req.Temperature,
		TopP:        req.TopP,
	}
	m.setMaxTokens(&r, req.MaxTokens)
	return r
}

// setMaxTokens bounds r's answer to n tokens, in the field the endpoint
// reads (Config.UseMaxCompletionTokens).
func (m *Model) setMaxTokens(r *goopenai.ChatCompletionRequest, n int) {
	if m.cfg.UseMaxCompletionTokens {
		r.MaxCompletionTokens = n
	} else {
		r.MaxTokens = n
	}
}

func fromUsage(u goopenai.Usage) llm.Usage {
	return llm.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
