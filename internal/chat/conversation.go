package chat

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/audit"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/chat/history"
	"github.com/ragchat/ragchat/internal/conversations"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/viewer"
)

// CreateConversation starts a conversation owned by the viewer, in the
// given knowledge base (or the tenant's first one); a temporary chat when
// asked for or when the tenant enforces them (temporary.go).
func (e *Engine) CreateConversation(ctx context.Context, in CreateConversationInput) (*ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	title, source := "", conversation.TitleSourceQUESTION
	if strings.TrimSpace(in.Title) != "" {
		if title, err = checkTitle(in.Title); err != nil {
			return nil, err
		}
		source = conversation.TitleSourceUSER
	}
	strategy, err := history.ParseStrategy(in.HistoryStrategy)
	if err != nil {
		return nil, err
	}
	kbID, err := conversations.KnowledgeBase(ctx, e.client, in.KnowledgeBaseID)
	if err != nil {
		return nil, err
	}
	st, err := tenantsettings.Effective(ctx, e.client)
	if err != nil {
		return nil, err
	}
	if err := e.checkConversationModel(ctx, in, st); err != nil {
		return nil, err
	}
	now := e.now()
	temporary, err := conversations.TemporaryExpiry(st, in.Temporary, now)
	if err != nil {
		return nil, err
	}
	create := conversations.Create(e.client.Conversation, v, st, now).
		SetKnowledgeBaseID(kbID).
		SetTitle(title).
		SetTitleSource(source).
		SetNillableHistoryStrategy(strategy).
		SetNillableFolderID(in.FolderID).
		SetNillableTemporaryExpiresAt(temporary)
	if len(in.Metadata) > 0 {
		create.SetMetadata(in.Metadata)
	}
	create.SetNillableModelProfileID(in.ModelProfileID)
	if !in.ModelParameters.IsZero() {
		create.SetModelParameters(in.ModelParameters)
	}
	conv, err := create.Save(ctx)
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	e.feed.ConversationChanged(ctx, conv, feed.ConversationUpdated, feed.ViewerConversationCreated)
	return conv, nil
}

// Conversation loads a conversation the viewer may see. DELETED ones are
// NOT_FOUND. An admin reading another user's conversation is audited
// (internal/readaudit).
func (e *Engine) Conversation(ctx context.Context, id uuid.UUID) (*ent.Conversation, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	return conversations.Load(ctx, e.client, id, e.now())
}

// RenameConversation sets a user-chosen title. With ExpectVersion, a
// conversation at another version is CONFLICT (updateConversation).
func (e *Engine) RenameConversation(ctx context.Context, id uuid.UUID, title string, opts ...UpdateOption) (*ent.Conversation, error) {
	title, err := checkTitle(title)
	if err != nil {
		return nil, err
	}
	return e.updateOwnConversation(ctx, id, opts, feed.ViewerConversationUpdated,
		func(_ *ent.Conversation, u *ent.ConversationUpdateOne) (bool, error) {
			u.SetTitle(title).SetTitleSource(conversation.TitleSourceUSER)
			return true, nil
		})
}

// ArchiveConversation makes a conversation read-only. Archiving an archived
// conversation is a no-op.
func (e *Engine) ArchiveConversation(ctx context.Context, id uuid.UUID, opts ...UpdateOption) (*ent.Conversation, error) {
	return e.updateOwnConversation(ctx, id, opts, feed.ViewerConversationArchived,
		func(c *ent.Conversation, u *ent.ConversationUpdateOne) (bool, error) {
			if c.Status == conversation.StatusARCHIVED {
				return false, nil
			}
			u.SetStatus(conversation.StatusARCHIVED)
			return true, nil
		})
}

// UnarchiveConversation makes an archived conversation accept questions
// again. Unarchiving an active conversation is a no-op. An expired
// conversation is never revived (checkOpen): unarchiving one is
// CONVERSATION_EXPIRED, and it stays archived.
func (e *Engine) UnarchiveConversation(ctx context.Context, id uuid.UUID, opts ...UpdateOption) (*ent.Conversation, error) {
	return e.updateOwnConversation(ctx, id, opts, feed.ViewerConversationUpdated,
		func(c *ent.Conversation, u *ent.ConversationUpdateOne) (bool, error) {
			if authz.ExpiredAt(c, e.now()) {
				return false, conversations.CheckOpen(c, e.now())
			}
			if c.Status != conversation.StatusARCHIVED {
				return false, nil
			}
			u.SetStatus(conversation.StatusACTIVE)
			return true, nil
		})
}

// SetConversationHistoryStrategy sets the conversation's own history
// strategy; nil returns it to the tenant's (TenantSettings.HistoryStrategy).
// An unknown strategy is BAD_USER_INPUT naming the field historyStrategy.
// Only the owner may change it.
func (e *Engine) SetConversationHistoryStrategy(ctx context.Context, id uuid.UUID, strategy *string, opts ...UpdateOption) (*ent.Conversation, error) {
	s, err := history.ParseStrategy(strategy)
	if err != nil {
		return nil, err
	}
	return e.updateOwnConversation(ctx, id, opts, feed.ViewerConversationUpdated,
		func(c *ent.Conversation, u *ent.ConversationUpdateOne) (bool, error) {
			switch {
			case history.SameStrategy(c.HistoryStrategy, s):
				return false, nil
			case s == nil:
				u.ClearHistoryStrategy()
			default:
				u.SetHistoryStrategy(*s)
			}
			return true, nil
		})
}

// DeleteConversation soft-deletes a conversation: it disappears from every
// query at once, can be restored within the tenant's retention, and is
// purged after it. The owner or a tenant admin may delete; an audit event
// records who and why. A running answer is cancelled. With ExpectVersion, a
// conversation at another version is CONFLICT.
func (e *Engine) DeleteConversation(ctx context.Context, id uuid.UUID, reason string, opts ...UpdateOption) (*ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	if reason, err = e.checkComment("reason", reason); err != nil {
		return nil, err
	}
	// The deletion writes its own audit event; its read is not a view.
	ctx = readaudit.Exempt(ctx)
	load := func(ctx context.Context) (*ent.Conversation, error) {
		conv, err := conversations.Load(ctx, e.client, id, e.now())
		if err != nil {
			return nil, err
		}
		if conv.UserID != v.UserID && !v.IsAdmin() {
			return nil, domain.NotFound("conversation")
		}
		return conv, nil
	}
	var pending []*ent.Attempt
	conv, _, err := e.updateConversation(ctx, load, expectedVersion(opts),
		func(c *ent.Conversation, u *ent.ConversationUpdateOne) (bool, error) {
			var err error
			pending, err = e.client.Attempt.Query().
				Where(attempt.ConversationID(c.ID), attempt.StatusEQ(attempt.StatusPENDING)).All(ctx)
			if err != nil {
				return false, store.DomainError(err, "attempt")
			}
			u.SetStatus(conversation.StatusDELETED).SetDeletedAt(e.now())
			return true, nil
		})
	if err != nil {
		return nil, err
	}
	e.cancelConversationAttempts(authz.IncludeDeleted(ctx), conv.ID, pending)
	audit.Log(ctx, e.client.AuditEvent, e.log, audit.Event{Action: "conversation.deleted", TargetType: "Conversation", TargetID: conv.ID.String(), Reason: reason, Metadata: map[string]string{"owner": conv.UserID}})
	e.feed.ConversationChanged(ctx, conv, feed.ConversationDeleted, feed.ViewerConversationDeleted)
	return conv, nil
}

// RestoreConversation undoes a soft delete within the tenant's retention.
// The conversation comes back ACTIVE; its expiry is unchanged, so an
// expired conversation stays expired (it reads as EXPIRED). With ExpectVersion,
// a conversation at another version is CONFLICT.
func (e *Engine) RestoreConversation(ctx context.Context, id uuid.UUID, opts ...UpdateOption) (*ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	// Restoring reads and updates a DELETED conversation on purpose; it
	// writes its own audit event.
	ctx = readaudit.Exempt(authz.IncludeDeleted(ctx))
	st, err := tenantsettings.Effective(ctx, e.client)
	if err != nil {
		return nil, err
	}
	load := func(ctx context.Context) (*ent.Conversation, error) {
		conv, err := e.client.Conversation.Get(ctx, id)
		if err != nil {
			return nil, store.DomainError(err, "conversation")
		}
		if conv.UserID != v.UserID && !v.IsAdmin() {
			return nil, domain.NotFound("conversation")
		}
		return conv, nil
	}
	conv, changed, err := e.updateConversation(ctx, load, expectedVersion(opts),
		func(c *ent.Conversation, u *ent.ConversationUpdateOne) (bool, error) {
			if c.Status != conversation.StatusDELETED {
				return false, nil
			}
			if c.DeletedAt != nil && e.now().After(c.DeletedAt.Add(time.Duration(st.RetentionDays)*24*time.Hour)) {
				return false, domain.NotFound("conversation")
			}
			u.SetStatus(conversation.StatusACTIVE).ClearDeletedAt()
			return true, nil
		})
	if err != nil || !changed {
		return conv, err
	}
	audit.Log(ctx, e.client.AuditEvent, e.log, audit.Event{Action: "conversation.restored", TargetType: "Conversation", TargetID: conv.ID.String(), Metadata: map[string]string{"owner": conv.UserID}})
	e.feed.ConversationChanged(ctx, conv, feed.ConversationUpdated, feed.ViewerConversationRestored)
	return conv, nil
}

// ownConversationLoader returns a loader of a conversation the viewer owns
// (loadOwnConversation), for updateConversation.
func (e *Engine) ownConversationLoader(id uuid.UUID) func(context.Context) (*ent.Conversation, error) {
	return func(ctx context.Context) (*ent.Conversation, error) {
		return conversations.LoadOwn(ctx, e.client, id, e.now())
	}
}
