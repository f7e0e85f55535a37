package resolvers

import (
	"context"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/viewer"
)

// viewerEvents streams the viewer's own conversation changes.
func (r *Resolver) viewerEvents(ctx context.Context) (<-chan *model.ViewerEvent, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	ctx, release, err := r.admit(ctx, "viewer")
	if err != nil {
		return nil, err
	}
	src, err := r.feed.SubscribeViewer(ctx)
	if err != nil {
		release()
		return nil, err
	}
	out := make(chan *model.ViewerEvent)
	first := &model.ViewerEvent{Kind: model.ViewerEventKindSubscribed, At: r.now()}
	go func() {
		defer release()
		defer close(out)
		forward(ctx, src, out, first, viewerEventModel)
	}()
	return out, nil
}

// viewerEventModel converts a feed viewer event.
func viewerEventModel(ev feed.ViewerEvent) *model.ViewerEvent {
	m := &model.ViewerEvent{
		Kind:             model.ViewerEventKind(ev.Kind),
		ConversationID:   ev.ConversationID,
		AttemptID:        ev.AttemptID,
		MessageID:        ev.MessageID,
		AttachmentID:     ev.AttachmentID,
		At:               ev.At,
		AttachmentStatus: optionalEnum[attachment.Status](ev.AttachmentStatus),
		AttemptStatus:    optionalEnum[attempt.Status](ev.AttemptStatus),
	}
	m.ChangedAttemptIds, m.ChangedAttemptCount = changedAttempts(viewerSourcesChanged(ev), ev.ChangedAttemptIDs, ev.ChangedAttempts)
	return m
}

// viewerEventConversation loads the conversation of a feed event (see
// eventRow); after CONVERSATION_DELETED there is nothing to show, and
// SUBSCRIBED is about no conversation.
func (r *Resolver) viewerEventConversation(ctx context.Context, ev *model.ViewerEvent) (*ent.Conversation, error) {
	if ev.Kind == model.ViewerEventKindConversationDeleted || ev.Kind == model.ViewerEventKindSubscribed {
		return nil, nil
	}
	return loadEventConversation(ctx, r.client, ev.ConversationID)
}

// viewerEventAttempt loads the attempt of an ATTEMPT_UPDATED feed event
// (see eventRow).
func (r *Resolver) viewerEventAttempt(ctx context.Context, ev *model.ViewerEvent) (*ent.Attempt, error) {
	return loadEventAttempt(ctx, r.client, ev.AttemptID)
}
