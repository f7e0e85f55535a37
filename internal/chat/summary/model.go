package summary

import (
	"context"

	"github.com/ragchat/ragchat/internal/llm"
)

// modelKey carries the model one fold asks instead of Summarizer.Model.
type modelKey struct{}

// WithModel returns ctx whose folds ask m for their LLM summaries instead
// of Summarizer.Model: the engine passes the model of the conversation's
// attempt (its model profile), metering each call.
func WithModel(ctx context.Context, m llm.Summarizer) context.Context {
	if m == nil {
		return ctx
	}
	return context.WithValue(ctx, modelKey{}, m)
}

// modelFor returns the model ctx names, else s.Model.
func (s *Summarizer) modelFor(ctx context.Context) llm.Summarizer {
	if m, ok := ctx.Value(modelKey{}).(llm.Summarizer); ok {
		return m
	}
	return s.Model
}
