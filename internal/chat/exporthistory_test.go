package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/chat/history"
	"github.com/ragchat/ragchat/internal/conversations"
	"github.com/ragchat/ragchat/internal/tenantsettings"
)

// PreviewBuilt is PreviewContext returning the whole context it built,
// the prompt's texts included, for tests that check what of a
// conversation's tree reaches the model.
func PreviewBuilt(ctx context.Context, e *Engine, conversationID uuid.UUID, question string) (history.BuiltContext, error) {
	conv, err := conversations.LoadOwn(ctx, e.client, conversationID, e.now())
	if err != nil {
		return history.BuiltContext{}, err
	}
	st, err := tenantsettings.Effective(ctx, e.client)
	if err != nil {
		return history.BuiltContext{}, err
	}
	j := previewJob(conv, st, question)
	return e.buildContext(ctx, j, nil)
}
