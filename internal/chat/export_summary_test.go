package chat

import (
	"context"

	"github.com/google/uuid"
)

// SummarizeNow runs one summariser pass over conversation id with the
// viewer's tenant settings, as the engine does after an answer.
func SummarizeNow(ctx context.Context, e *Engine, id uuid.UUID) error {
	st, err := e.settings(ctx)
	if err != nil {
		return err
	}
	return e.summarizer.Fold(ctx, id, st, e.chatModel(st))
}
