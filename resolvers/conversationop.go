package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/viewer"
)

// conversationOp runs one engine operation on a conversation id, expecting
// its version when expectedVersion is set.
func (r *Resolver) conversationOp(ctx context.Context, id uuid.UUID, expectedVersion *int, op func(context.Context, uuid.UUID, ...chat.UpdateOption) (*ent.Conversation, error)) (*ent.Conversation, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	c, err := op(ctx, id, chat.ExpectVersionIf(expectedVersion))
	return c, notFound(err, "conversation")
}
