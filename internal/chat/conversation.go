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
	"github.com/ragchat/ragchat/internal/chat/history"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/store"
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
		if title, err = e.checkTitle(in.Title); err != nil {
			return nil, err
		}
		source = conversation.TitleSourceUSER
	}
	strategy, err := history.ParseStrategy(in.HistoryStrategy)
	if err != nil {
		return nil, err
	}
	kbID, err := e.knowledgeBaseFor(ctx, in.KnowledgeBaseID)
	if err != nil {
		return nil, err
	}
	st, err := e.settings(ctx)
	if err != nil {
		return nil, err
	}
	if err := e.checkConversationModel(ctx, in, st); err != nil {
		return nil, err
	}
	now := e.now()
	temporary, err := temporaryExpiry(st, in.Temporary, now)
	if err != nil {
		return nil, err
	}
	abs := now.Add(st.ConversationMaxAge.Duration)
	create := e.client.Conversation.Create().
		SetUserID(v.UserID).
		SetKnowledgeBaseID(kbID).
		SetTitle(title).
		SetTitleSource(source).
		SetExpiresAt(minTime(now.Add(st.ConversationIdleTTL.Duration), abs)).
		SetAbsoluteExpiresAt(abs).
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

// knowledgeBaseFor resolves the knowledge base a new conversation searches:
// the requested one if the viewer can see it, else the tenant's oldest.
func (e *Engine) knowledgeBaseFor(ctx context.Context, id *uuid.UUID) (uuid.UUID, error) {
	q := e.client.KnowledgeBase.Query()
	if id != nil {
		q = q.Where(knowledgebase.ID(*id))
	}
	kb, err := q.Order(ent.Asc(knowledgebase.FieldCreatedAt)).First(ctx)
	if err != nil {
		return uuid.Nil, store.DomainError(err, "knowledge base")
	}
	return kb.ID, nil
}

// Conversation loads a conversation the viewer may see. DELETED ones are
// NOT_FOUND. An admin reading another user's conversation is audited
// (internal/readaudit).
func (e *Engine) Conversation(ctx context.Context, id uuid.UUID) (*ent.Conversation, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	return e.loadConversation(ctx, id)
}

// loadConversation returns a visible conversation that is not gone
// (DELETED, or a temporary chat past its expiry). The privacy rules
// already hide those (internal/authz); the check keeps that true where a
// context includes them.
func (e *Engine) loadConversation(ctx context.Context, id uuid.UUID) (*ent.Conversation, error) {
	conv, err := e.client.Conversation.Get(ctx, id)
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	if e.gone(conv) {
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
		return nil, store.DomainError(err, "conversation")
	}
	if e.gone(conv) {
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

// RenameConversation sets a user-chosen title. With ExpectVersion, a
// conversation at another version is CONFLICT (updateConversation).
func (e *Engine) RenameConversation(ctx context.Context, id uuid.UUID, title string, opts ...UpdateOption) (*ent.Conversation, error) {
	title, err := e.checkTitle(title)
	if err != nil {
		return nil, err
	}
	conv, changed, err := e.updateConversation(ctx, e.ownConversationLoader(id), expectedVersion(opts),
		func(_ *ent.Conversation, u *ent.ConversationUpdateOne) (bool, error) {
			u.SetTitle(title).SetTitleSource(conversation.TitleSourceUSER)
			return true, nil
		})
	if err != nil || !changed {
		return conv, err
	}
	e.feed.ConversationChanged(ctx, conv, feed.ConversationUpdated, feed.ViewerConversationUpdated)
	return conv, nil
}

// ArchiveConversation makes a conversation read-only. Archiving an archived
// conversation is a no-op.
func (e *Engine) ArchiveConversation(ctx context.Context, id uuid.UUID, opts ...UpdateOption) (*ent.Conversation, error) {
	conv, changed, err := e.updateConversation(ctx, e.ownConversationLoader(id), expectedVersion(opts),
		func(c *ent.Conversation, u *ent.ConversationUpdateOne) (bool, error) {
			if c.Status == conversation.StatusARCHIVED {
				return false, nil
			}
			u.SetStatus(conversation.StatusARCHIVED)
			return true, nil
		})
	if err != nil || !changed {
		return conv, err
	}
	e.feed.ConversationChanged(ctx, conv, feed.ConversationUpdated, feed.ViewerConversationArchived)
	return conv, nil
}

// UnarchiveConversation makes an archived conversation accept questions
// again. Unarchiving an active conversation is a no-op. An expired
// conversation is never revived (checkOpen): unarchiving one is
// CONVERSATION_EXPIRED, and it stays archived.
func (e *Engine) UnarchiveConversation(ctx context.Context, id uuid.UUID, opts ...UpdateOption) (*ent.Conversation, error) {
	conv, changed, err := e.updateConversation(ctx, e.ownConversationLoader(id), expectedVersion(opts),
		func(c *ent.Conversation, u *ent.ConversationUpdateOne) (bool, error) {
			if expiredAt(c, e.now()) {
				return false, e.checkOpen(c)
			}
			if c.Status != conversation.StatusARCHIVED {
				return false, nil
			}
			u.SetStatus(conversation.StatusACTIVE)
			return true, nil
		})
	if err != nil || !changed {
		return conv, err
	}
	e.feed.ConversationChanged(ctx, conv, feed.ConversationUpdated, feed.ViewerConversationUpdated)
	return conv, nil
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
	conv, changed, err := e.updateConversation(ctx, e.ownConversationLoader(id), expectedVersion(opts),
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
	if err != nil || !changed {
		return conv, err
	}
	e.feed.ConversationChanged(ctx, conv, feed.ConversationUpdated, feed.ViewerConversationUpdated)
	return conv, nil
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
		conv, err := e.loadConversation(ctx, id)
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
	e.audit(ctx, "conversation.deleted", "Conversation", conv.ID.String(), reason, map[string]string{"owner": conv.UserID})
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
	st, err := e.settings(ctx)
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
	e.audit(ctx, "conversation.restored", "Conversation", conv.ID.String(), "", map[string]string{"owner": conv.UserID})
	e.feed.ConversationChanged(ctx, conv, feed.ConversationUpdated, feed.ViewerConversationRestored)
	return conv, nil
}

// ownConversationLoader returns a loader of a conversation the viewer owns
// (loadOwnConversation), for updateConversation.
func (e *Engine) ownConversationLoader(id uuid.UUID) func(context.Context) (*ent.Conversation, error) {
	return func(ctx context.Context) (*ent.Conversation, error) { return e.loadOwnConversation(ctx, id) }
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
