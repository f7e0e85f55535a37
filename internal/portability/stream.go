package portability

import (
	"context"
	"io"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// WriteJSONL writes the JSON Document of each of the viewer's own
// conversations to w, one per line, in id order, leaving out DELETED and
// temporary ones. It reads a page of conversations and a page of messages
// at a time, calls flush (if not nil) after each conversation, and
// returns ctx's error as soon as ctx ends.
func (s *Service) WriteJSONL(ctx context.Context, w io.Writer, flush func()) error {
	v, err := viewer.Require(ctx)
	if err != nil {
		return err
	}
	at := s.now()
	var after *uuid.UUID
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		q := s.client.Conversation.Query().
			Where(conversation.UserID(v.UserID),
				conversation.StatusNEQ(conversation.StatusDELETED),
				authz.NotTemporary())
		if after != nil {
			q = q.Where(conversation.IDGT(*after))
		}
		convs, err := q.Order(ent.Asc(conversation.FieldID)).Limit(s.limits.ConversationPage).All(ctx)
		if err != nil {
			return store.DomainError(err, "conversation")
		}
		for _, conv := range convs {
			if err := s.writeDocument(ctx, w, conv, at); err != nil {
				return err
			}
			if flush != nil {
				flush()
			}
		}
		if len(convs) < s.limits.ConversationPage {
			return nil
		}
		id := convs[len(convs)-1].ID
		after = &id
	}
}
