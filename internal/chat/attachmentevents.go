package chat

import (
	"context"

	"github.com/ragchat/ragchat/ent"
)

// AttachmentChanged tells a's conversation stream and its owner's viewer
// feed, on every instance, that a's status changed (ATTACHMENT_UPDATED
// with the attachment's id and status). The feed never hears of a
// temporary chat (publishViewer); the conversation's own stream does, so a
// temporary chat's attachments update too, and the API shows the event
// only to subscribers who may read the attachment (its owner).
// internal/attachment calls it on each state change (UPLOADED, SCANNING,
// CHUNKING, READY, FAILED); a broker failure is logged, never returned.
func (e *Engine) AttachmentChanged(ctx context.Context, a *ent.Attachment) {
	id := a.ID
	e.publishConversation(ctx, a.ConversationID, ConversationEvent{
		Kind: ConversationAttachmentUpdated, AttachmentID: &id, AttachmentStatus: a.Status.String(),
	})
	e.publishViewer(ctx, e.conversationFeed(ctx, a.TenantID, a.OwnerID, a.ConversationID), ViewerEvent{
		Kind: ViewerAttachmentUpdated, ConversationID: a.ConversationID,
		AttachmentID: &id, AttachmentStatus: a.Status.String(),
	})
}
