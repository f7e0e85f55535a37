package chat

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// CreateConversation starts a conversation owned by the viewer, in the
// given knowledge base (or the tenant's first one).
func (e *Engine) CreateConversation(ctx context.Context, in CreateConversationInput) (*ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	title, source := "", conversation.TitleSourceQUESTION
	if strings.TrimSpace(in.Title) != "" {
		if title, err = e.checkTitle(in.Title); err != nil {
			return nil, err
		}
		source = conversation.TitleSourceUSER
	}
	kbID, err := e.knowledgeBaseFor(ctx, in.KnowledgeBaseID)
	if err != nil {
		return nil, err
	}
	st, err := e.settings(ctx)
	if err != nil {
		return nil, err
	}
	now := e.now()
	abs := now.Add(st.ConversationMaxAge.Duration)
	conv, err := e.client.Conversation.Create().
		SetUserID(v.UserID).
		SetKnowledgeBaseID(kbID).
		SetTitle(title).
		SetTitleSource(source).
		SetExpiresAt(minTime(now.Add(st.ConversationIdleTTL.Duration), abs)).
		SetAbsoluteExpiresAt(abs).
		Save(ctx)
	if err != nil {
		return nil, storageError(err, "conversation")
	}
	e.conversationChanged(ctx, conv, ConversationUpdated, ViewerConversationCreated)
	return conv, nil
}

// knowledgeBaseFor resolves the knowledge base a new conversation searches:
// the requested one if the viewer can see it, else the tenant's oldest.
func (e *Engine) knowledgeBaseFor(ctx context.Context, id *uuid.UUID) (uuid.UUID, error) {
	q := e.client.KnowledgeBase.Query()
	if id != nil {
		q = q.Where(knowledgebase.ID(*id))
	}
	kb, err := q.Order(ent.Asc(knowledgebase.FieldCreatedAt)).First(ctx)
	if err != nil {
		return uuid.Nil, storageError(err, "knowledge base")
	}
	return kb.ID, nil
}

// Conversation loads a conversation the viewer may see. DELETED ones are
// NOT_FOUND. An admin reading another user's conversation is audited
// (readaudit.go).
func (e *Engine) Conversation(ctx context.Context, id uuid.UUID) (*ent.Conversation, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	return e.loadConversation(ctx, id)
}

// loadConversation returns a visible, not deleted conversation. The
// privacy rules already hide DELETED conversations (internal/authz); the
// status check keeps that true where a context includes them.
func (e *Engine) loadConversation(ctx context.Context, id uuid.UUID) (*ent.Conversation, error) {
	conv, err := e.client.Conversation.Get(ctx, id)
	if err != nil {
		return nil, storageError(err, "conversation")
	}
	if conv.Status == conversation.StatusDELETED {
		return nil, domain.NotFound("conversation")
	}
	return conv, nil
}

// loadOwnConversation returns a conversation the viewer owns: even a tenant
// admin cannot ask, retry, cancel or rate in someone else's conversation.
// It reads only the viewer's own rows, so such an attempt reads nothing
// and is NOT_FOUND like an unknown id.
func (e *Engine) loadOwnConversation(ctx context.Context, id uuid.UUID) (*ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	conv, err := e.client.Conversation.Query().
		Where(conversation.ID(id), conversation.UserID(v.UserID)).Only(ctx)
	if err != nil {
		return nil, storageError(err, "conversation")
	}
	if conv.Status == conversation.StatusDELETED {
		return nil, domain.NotFound("conversation")
	}
	return conv, nil
}

// checkOpen refuses a conversation that has expired or is archived. An
// expired conversation is never revived: the client starts a new one.
func (e *Engine) checkOpen(conv *ent.Conversation) error {
	now := e.now()
	if !now.Before(conv.ExpiresAt) || !now.Before(conv.AbsoluteExpiresAt) {
		return domain.Errorf(domain.CodeConversationExpired, "the conversation has expired; start a new one").
			With("expiredAt", minTime(conv.ExpiresAt, conv.AbsoluteExpiresAt).UTC().Format(time.RFC3339))
	}
	if conv.Status == conversation.StatusARCHIVED {
		return domain.Errorf(domain.CodeConversationClosed, "the conversation is archived and accepts no new questions")
	}
	return nil
}

// RenameConversation sets a user-chosen title.
func (e *Engine) RenameConversation(ctx context.Context, id uuid.UUID, title string) (*ent.Conversation, error) {
	title, err := e.checkTitle(title)
	if err != nil {
		return nil, err
	}
	conv, err := e.loadOwnConversation(ctx, id)
	if err != nil {
		return nil, err
	}
	conv, err = e.client.Conversation.UpdateOne(conv).
		SetTitle(title).SetTitleSource(conversation.TitleSourceUSER).AddVersion(1).Save(ctx)
	if err != nil {
		return nil, storageError(err, "conversation")
	}
	e.conversationChanged(ctx, conv, ConversationUpdated, ViewerConversationUpdated)
	return conv, nil
}

// ArchiveConversation makes a conversation read-only. Archiving an archived
// conversation is a no-op.
func (e *Engine) ArchiveConversation(ctx context.Context, id uuid.UUID) (*ent.Conversation, error) {
	conv, err := e.loadOwnConversation(ctx, id)
	if err != nil {
		return nil, err
	}
	if conv.Status == conversation.StatusARCHIVED {
		return conv, nil
	}
	conv, err = e.client.Conversation.UpdateOne(conv).SetStatus(conversation.StatusARCHIVED).AddVersion(1).Save(ctx)
	if err != nil {
		return nil, storageError(err, "conversation")
	}
	e.conversationChanged(ctx, conv, ConversationUpdated, ViewerConversationArchived)
	return conv, nil
}

// DeleteConversation soft-deletes a conversation: it disappears from every
// query at once, can be restored within the tenant's retention, and is
// purged after it. The owner or a tenant admin may delete; an audit event
// records who and why. A running answer is cancelled.
func (e *Engine) DeleteConversation(ctx context.Context, id uuid.UUID, reason string) (*ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	if reason, err = e.checkComment("reason", reason); err != nil {
		return nil, err
	}
	// The deletion writes its own audit event; its read is not a view.
	ctx = withoutReadAudit(ctx)
	conv, err := e.loadConversation(ctx, id)
	if err != nil {
		return nil, err
	}
	if conv.UserID != v.UserID && !v.IsAdmin() {
		return nil, domain.NotFound("conversation")
	}
	pending, err := e.client.Attempt.Query().
		Where(attempt.ConversationID(conv.ID), attempt.StatusEQ(attempt.StatusPENDING)).All(ctx)
	if err != nil {
		return nil, storageError(err, "attempt")
	}
	conv, err = e.client.Conversation.UpdateOne(conv).
		SetStatus(conversation.StatusDELETED).SetDeletedAt(e.now()).AddVersion(1).Save(ctx)
	if err != nil {
		return nil, storageError(err, "conversation")
	}
	e.cancelConversationAttempts(authz.IncludeDeleted(ctx), conv.ID, pending)
	e.audit(ctx, "conversation.deleted", "Conversation", conv.ID.String(), reason, map[string]string{"owner": conv.UserID})
	e.conversationChanged(ctx, conv, ConversationDeleted, ViewerConversationDeleted)
	return conv, nil
}

// RestoreConversation undoes a soft delete within the tenant's retention.
// The conversation comes back ACTIVE; its expiry is unchanged, so an
// expired conversation stays expired.
func (e *Engine) RestoreConversation(ctx context.Context, id uuid.UUID) (*ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	// Restoring reads and updates a DELETED conversation on purpose; it
	// writes its own audit event.
	ctx = withoutReadAudit(authz.IncludeDeleted(ctx))
	conv, err := e.client.Conversation.Get(ctx, id)
	if err != nil {
		return nil, storageError(err, "conversation")
	}
	if conv.UserID != v.UserID && !v.IsAdmin() {
		return nil, domain.NotFound("conversation")
	}
	if conv.Status != conversation.StatusDELETED {
		return conv, nil
	}
	st, err := e.settings(ctx)
	if err != nil {
		return nil, err
	}
	if conv.DeletedAt != nil && e.now().After(conv.DeletedAt.Add(time.Duration(st.RetentionDays)*24*time.Hour)) {
		return nil, domain.NotFound("conversation")
	}
	conv, err = e.client.Conversation.UpdateOne(conv).
		SetStatus(conversation.StatusACTIVE).ClearDeletedAt().AddVersion(1).Save(ctx)
	if err != nil {
		return nil, storageError(err, "conversation")
	}
	e.audit(ctx, "conversation.restored", "Conversation", conv.ID.String(), "", map[string]string{"owner": conv.UserID})
	e.conversationChanged(ctx, conv, ConversationUpdated, ViewerConversationRestored)
	return conv, nil
}

// audit appends an audit event as the viewer. Failing to audit is logged,
// never hidden; the action it describes has already happened.
func (e *Engine) audit(ctx context.Context, action, targetType, targetID, reason string, meta map[string]string) {
	v := viewer.FromContext(ctx)
	actor := "system"
	if v != nil {
		actor = v.UserID
	}
	err := e.client.AuditEvent.Create().SetActor(actor).SetAction(action).
		SetTargetType(targetType).SetTargetID(targetID).SetReason(reason).SetMetadata(meta).
		Exec(ctx)
	if err != nil {
		e.log.ErrorContext(ctx, "audit event not written", "action", action, "target", targetID, "err", err)
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
