// Package offline is ragchat's default model: deterministic, keyless and
// local. It embeds text with hashed word and character n-grams, rewrites
// follow-up questions with rules, answers extractively from the evidence in
// the prompt (citing every sentence), and summarises and titles
// conversations from the user's side only. It is a real demo mode, not a
// stub: Chinese and English questions retrieve and answer sensibly.
package offline

import (
	"cmp"
	"context"
	"time"

	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/llm"
)

// Names reported by the offline model.
const (
	Name             = "offline"
	ChatModel        = "offline-extractive-1"
	EmbeddingModel   = "offline-hash-1024"
	DefaultDelay     = 15 * time.Millisecond
	DefaultSentences = 3
)

// SuggestedMinEvidenceScore is a retrieval threshold that suits the
// hashed embeddings: the right chunk of a few hundred characters usually
// scores 0.15–0.5 against a question, unrelated chunks below 0.1.
const SuggestedMinEvidenceScore = 0.1

// Options configure the offline model.
type Options struct {
	// TokenDelay paces streamed tokens: 0 means DefaultDelay, a negative
	// value streams without pause.
	TokenDelay time.Duration
	// MaxSentences caps the evidence sentences of an answer (0 means
	// DefaultSentences).
	MaxSentences int
}

// Model is the offline implementation of llm.Model. It is stateless and
// safe for concurrent use.
type Model struct {
	delay        time.Duration
	maxSentences int
}

var _ llm.Model = (*Model)(nil)

// New returns an offline model.
func New(o Options) llm.Model {
	m := &Model{delay: o.TokenDelay, maxSentences: o.MaxSentences}
	m.delay = cmp.Or(m.delay, DefaultDelay)
	if m.delay < 0 {
		m.delay = 0
	}
	m.maxSentences = defaults.Positive(m.maxSentences, DefaultSentences)
	return m
}

// Name returns "offline".
func (m *Model) Name() string { return Name }

// DefaultChatModel returns "offline-extractive-1".
func (m *Model) DefaultChatModel() string { return ChatModel }

// EmbeddingModel returns "offline-hash-1024".
func (m *Model) EmbeddingModel() string { return EmbeddingModel }

// Title names a conversation after its first question (llm.ShortTitle).
func (m *Model) Title(ctx context.Context, firstQuestion string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", llm.ContextError(err)
	}
	return llm.ShortTitle(firstQuestion), nil
}
