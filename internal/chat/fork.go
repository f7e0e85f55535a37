package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
)

// ForkConversation copies the path from the root to messageID into a new
// conversation of the same owner; clientRequestID (optional) makes it
// idempotent.
func (e *Engine) ForkConversation(ctx context.Context, messageID uuid.UUID, clientRequestID string) (*ent.Conversation, error) {
	return nil, errNotYet
}
