package feed

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/viewer"
)

// ConversationChanged notifies conv's stream (kind) and its owner's feed
// (viewerKind), whoever made the change: the owner, an admin, or the
// engine.
func (s *Service) ConversationChanged(ctx context.Context, conv *ent.Conversation, kind ConversationEventKind, viewerKind ViewerEventKind) {
	s.publishConversation(ctx, conv.ID, ConversationEvent{Kind: kind})
	s.publishViewer(ctx, ownerOf(conv), ViewerEvent{Kind: viewerKind, ConversationID: conv.ID})
}

// ConversationsUpdated publishes CONVERSATION_UPDATED for each of convs on
// its stream and its owner's feed, on every replica: the notifier of
// changes made outside the engine (internal/organise: pins, tags, folders,
// metadata). Publishing never blocks on subscribers.
func (s *Service) ConversationsUpdated(ctx context.Context, convs ...*ent.Conversation) {
	for _, c := range convs {
		s.ConversationChanged(ctx, c, ConversationUpdated, ViewerConversationUpdated)
	}
}

// ConversationPurged tells conversation id's streams, on every instance,
// that it is gone (CONVERSATION_DELETED, their last event): the purge of a
// temporary chat, which its owner's feed never hears of.
func (s *Service) ConversationPurged(ctx context.Context, id uuid.UUID) {
	s.publishConversation(ctx, id, ConversationEvent{Kind: ConversationDeleted})
}

// AttemptChanged publishes a's status on its conversation's stream and its
// owner's feed; temporary says whether a's conversation is a temporary
// chat (the engine knows it of its runs; else Temporary reads it).
func (s *Service) AttemptChanged(ctx context.Context, a *ent.Attempt, temporary bool) {
	id := a.ID
	s.publishConversation(ctx, a.ConversationID, ConversationEvent{Kind: ConversationAttemptUpdated, AttemptID: &id, AttemptStatus: string(a.Status)})
	s.publishViewer(ctx, owner{tenantID: a.TenantID, userID: a.OwnerID, temporary: temporary},
		ViewerEvent{Kind: ViewerAttemptUpdated, ConversationID: a.ConversationID, AttemptID: &id, AttemptStatus: string(a.Status)})
}

// MessageCreated publishes a new message on its conversation's stream.
func (s *Service) MessageCreated(ctx context.Context, m *ent.Message) {
	id := m.ID
	s.publishConversation(ctx, m.ConversationID, ConversationEvent{Kind: ConversationMessageCreated, MessageID: &id})
}

// BranchSelected publishes that conv's current branch changed (an edit, a
// retry, a selected branch, an ask on another branch): BRANCH_SELECTED
// with the new current leaf, on the conversation's stream and its owner's
// feed, so that every device of the owner follows, on any instance.
func (s *Service) BranchSelected(ctx context.Context, conv *ent.Conversation, leafID uuid.UUID) {
	id := leafID
	s.publishConversation(ctx, conv.ID, ConversationEvent{Kind: ConversationBranchSelected, MessageID: &id})
	s.publishViewer(ctx, ownerOf(conv), ViewerEvent{Kind: ViewerBranchSelected, ConversationID: conv.ID, MessageID: &id})
}

// AttachmentChanged tells a's conversation stream and its owner's viewer
// feed, on every instance, that a's status changed (ATTACHMENT_UPDATED
// with the attachment's id and status). The feed never hears of a
// temporary chat (publishViewer); the conversation's own stream does, so a
// temporary chat's attachments update too, and the API shows the event
// only to subscribers who may read the attachment (its owner).
// internal/attachment calls it on each state change (UPLOADED, SCANNING,
// CHUNKING, READY, FAILED); a broker failure is logged, never returned.
func (s *Service) AttachmentChanged(ctx context.Context, a *ent.Attachment) {
	id := a.ID
	s.publishConversation(ctx, a.ConversationID, ConversationEvent{
		Kind: ConversationAttachmentUpdated, AttachmentID: &id, AttachmentStatus: a.Status.String(),
	})
	s.publishViewer(ctx, owner{tenantID: a.TenantID, userID: a.OwnerID, temporary: s.Temporary(ctx, a.ConversationID)}, ViewerEvent{
		Kind: ViewerAttachmentUpdated, ConversationID: a.ConversationID,
		AttachmentID: &id, AttachmentStatus: a.Status.String(),
	})
}

// Temporary reports whether conversation id is a temporary chat as its
// row says, read as a system job, since it may be gone already. A row
// that is not there any more, or that cannot be read, counts as
// temporary: its owner's feed hears nothing of it (clients read the list
// again when they reconnect).
func (s *Service) Temporary(ctx context.Context, id uuid.UUID) bool {
	conv, err := s.client.Conversation.Query().
		Where(conversation.ID(id)).
		Select(conversation.FieldTemporaryExpiresAt).
		Only(viewer.SystemJobContext(ctx, viewer.JobReaper))
	if err != nil {
		if !ent.IsNotFound(err) {
			s.log.WarnContext(ctx, "conversation not read; its feed event is dropped", "conversation", id, "err", err)
		}
		return true
	}
	return authz.IsTemporary(conv)
}

// owner is the viewer feed an event about one conversation goes to: its
// owner's (tenant, user), and whether the conversation is a temporary
// chat. publishViewer applies the temporary-chat rule to it.
type owner struct {
	tenantID, userID string
	temporary        bool
}

// ownerOf is the owner feed of conv.
func ownerOf(conv *ent.Conversation) owner {
	return owner{tenantID: conv.TenantID, userID: conv.UserID, temporary: authz.IsTemporary(conv)}
}

// publishConversation notifies a conversation's subscribers of a change.
func (s *Service) publishConversation(ctx context.Context, id uuid.UUID, ev ConversationEvent) {
	data, err := json.Marshal(conversationPayload{Message: ev.MessageID, Attempt: ev.AttemptID, Status: ev.AttemptStatus,
		File: ev.AttachmentID, FileStatus: ev.AttachmentStatus, At: s.now()})
	if err != nil {
		return
	}
	_, err = s.broker.Publish(context.WithoutCancel(ctx), broker.Event{Topic: conversationTopic(id), Kind: string(ev.Kind), Data: data})
	if err != nil {
		s.log.WarnContext(ctx, "publish conversation event", "conversation", id, "err", err)
	}
}

// publishViewer notifies the feed of a conversation's owner, whoever made
// the change: the owner, an admin, or the engine. It is the one way onto
// viewerEvents, and the one place of the temporary-chat rule there: an
// event about a temporary chat is never published, so another device of
// the owner never learns of it (docs/API.md, "Temporary chats").
func (s *Service) publishViewer(ctx context.Context, to owner, ev ViewerEvent) {
	if to.temporary {
		return
	}
	data, err := json.Marshal(viewerPayload{Tenant: to.tenantID, User: to.userID, Conversation: ev.ConversationID,
		Attempt: ev.AttemptID, Status: ev.AttemptStatus, Message: ev.MessageID,
		File: ev.AttachmentID, FileStatus: ev.AttachmentStatus, At: s.now()})
	if err != nil {
		return
	}
	_, err = s.broker.Publish(context.WithoutCancel(ctx), broker.Event{Topic: viewerTopic(to.tenantID, to.userID), Kind: string(ev.Kind), Data: data})
	if err != nil {
		s.log.WarnContext(ctx, "publish viewer event", "conversation", ev.ConversationID, "err", err)
	}
}
