package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/store"
)

// eventRow is the answer of every field of conversationEvents and
// viewerEvents that shows a row the event names: the row as the viewer may
// read it when the event is delivered, or null, with no error, once it is
// gone or hidden (docs/API.md, "null once the conversation is deleted").
// Other errors pass through.
func eventRow[T any](row *T, err error) (*T, error) {
	if store.Classify(err) == store.ClassNotFound {
		return nil, nil
	}
	return row, err
}

// loadEventConversation loads the conversation of an event, with field
// collection (eventRow).
func loadEventConversation(ctx context.Context, client *ent.Client, id uuid.UUID) (*ent.Conversation, error) {
	q, err := client.Conversation.Query().Where(conversation.ID(id)).CollectFields(ctx)
	if err != nil {
		return nil, err
	}
	return eventRow(q.Only(ctx))
}

// loadEventAttempt loads the attempt of an event, if it names one, with field
// collection (eventRow).
func loadEventAttempt(ctx context.Context, client *ent.Client, id *uuid.UUID) (*ent.Attempt, error) {
	if id == nil {
		return nil, nil
	}
	q, err := client.Attempt.Query().Where(attempt.ID(*id)).CollectFields(ctx)
	if err != nil {
		return nil, err
	}
	return eventRow(q.Only(ctx))
}

// mayReadAttachment re-authorises an ATTACHMENT_UPDATED event of a
// conversation stream as a fresh query would: the subscriber sees it only
// when the attachment is visible to them under its privacy policy (its
// owner); other readers of the conversation, and any read that fails,
// see nothing.
func (r *Resolver) mayReadAttachment(ctx context.Context, id *uuid.UUID) bool {
	if id == nil {
		return false
	}
	ok, err := r.client.Attachment.Query().Where(attachment.ID(*id)).Exist(ctx)
	return err == nil && ok
}
