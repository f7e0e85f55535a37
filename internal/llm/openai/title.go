package openai

import (
	"context"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/ragchat/ragchat/internal/llm"
)

// Title asks the model for a short title and falls back to the trimmed
// question when the answer is empty. Titles have at most
// llm.MaxTitleRunes runes.
func (m *Model) Title(ctx context.Context, firstQuestion string) (string, error) {
	if strings.TrimSpace(firstQuestion) == "" {
		return llm.DefaultTitle, nil
	}
	creq := goopenai.ChatCompletionRequest{
		Model: m.cfg.ChatModel,
		Messages: []goopenai.ChatCompletionMessage{
			{Role: goopenai.ChatMessageRoleSystem, Content: titleSystem},
			{Role: goopenai.ChatMessageRoleUser, Content: titleUser(firstQuestion)},
		},
	}
	if m.cfg.UseMaxCompletionTokens {
		creq.MaxCompletionTokens = titleMaxTokens
	} else {
		creq.MaxTokens = titleMaxTokens
	}
	text, _, err := m.complete(ctx, creq, true)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if strings.TrimSpace(line) == "" {
		return llm.ShortTitle(firstQuestion), nil
	}
	return llm.ShortTitle(line), nil
}
