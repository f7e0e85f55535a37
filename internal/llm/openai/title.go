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
	title, _, err := m.TitleWith(ctx, "", firstQuestion)
	return title, err
}

// TitleWith implements llm.ModelTitler: Title asked of the chat model
// model ("" the configured one), with the usage the provider reported.
func (m *Model) TitleWith(ctx context.Context, model, firstQuestion string) (string, llm.Usage, error) {
	if strings.TrimSpace(firstQuestion) == "" {
		return llm.DefaultTitle, llm.Usage{}, nil
	}
	creq := goopenai.ChatCompletionRequest{
		Model: m.chatModel(model),
		Messages: []goopenai.ChatCompletionMessage{
			{Role: goopenai.ChatMessageRoleSystem, Content: titleSystem},
			{Role: goopenai.ChatMessageRoleUser, Content: titleUser(firstQuestion)},
		},
	}
	m.setMaxTokens(&creq, titleMaxTokens)
	text, usage, err := m.complete(ctx, creq, true)
	if err != nil {
		return "", usage, err
	}
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if strings.TrimSpace(line) == "" {
		return llm.ShortTitle(firstQuestion), usage, nil
	}
	return llm.ShortTitle(line), usage, nil
}
