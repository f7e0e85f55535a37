package organise

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Pin pins the viewer's own conversation id; pinning a pinned one is a
// no-op that keeps its version and its pinnedAt.
func (s *Service) Pin(ctx context.Context, id uuid.UUID, expected *int) (*ent.Conversation, error) {
	return s.changeConversation(ctx, id, expected, func(ctx context.Context, tx *ent.Tx, _ *viewer.Viewer, conv *ent.Conversation) (bool, error) {
		if conv.PinnedAt != nil {
			return false, nil
		}
		return true, store.DomainError(tx.Conversation.UpdateOne(conv).SetPinnedAt(s.now()).Exec(ctx), "conversation")
	})
}

// Unpin unpins the viewer's own conversation id; unpinning one that is not
// pinned is a no-op.
func (s *Service) Unpin(ctx context.Context, id uuid.UUID, expected *int) (*ent.Conversation, error) {
	return s.changeConversation(ctx, id, expected, func(ctx context.Context, tx *ent.Tx, _ *viewer.Viewer, conv *ent.Conversation) (bool, error) {
		if conv.PinnedAt == nil {
			return false, nil
		}
		return true, store.DomainError(tx.Conversation.UpdateOne(conv).ClearPinnedAt().Exec(ctx), "conversation")
	})
}
