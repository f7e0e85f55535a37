package chat

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/tenantsettings"
)

// Temporary chats (docs/ENGINE.md, "Temporary chats"). A conversation is
// temporary while conversations.temporary_expires_at is set
// (authz.IsTemporary): it was made with CreateConversationInput.Temporary (or under the tenant's ENFORCED
// policy) and lasts TenantSettings.TemporaryChatRetention from its
// creation. From that instant it is gone: internal/authz leaves it and
// every row beneath it out of every read and write, exactly like an
// unknown id, and the purge job (PurgeOnce) deletes the rows. Until then
// it works like any conversation, except that it is never listed, never
// reaches viewerEvents (another device must not learn of it: internal/feed
// keeps that rule, and temporaryAttempt tells it of the engine's
// attempts), and never gets an LLM summary or an LLM title (the model
// sees nothing beyond the answers it gives). KeepConversation turns it into a normal one.

// KeepConversation turns one of the viewer's own temporary chats into a
// normal conversation: its temporary expiry is cleared, its version
// bumped, and CONVERSATION_UPDATED published (now to viewerEvents too).
// Keeping a normal conversation is a no-op. Anyone else's conversation,
// and a temporary chat already gone, is NOT_FOUND; under the tenant's
// ENFORCED policy keeping is FORBIDDEN. With ExpectVersion, a conversation
// at another version is CONFLICT.
func (e *Engine) KeepConversation(ctx context.Context, id uuid.UUID, opts ...UpdateOption) (*ent.Conversation, error) {
	st, err := tenantsettings.Effective(ctx, e.client)
	if err != nil {
		return nil, err
	}
	return e.updateOwnConversation(ctx, id, opts, feed.ViewerConversationCreated,
		func(c *ent.Conversation, u *ent.ConversationUpdateOne) (bool, error) {
			if !authz.IsTemporary(c) {
				return false, nil
			}
			if st.TemporaryChats == domain.TemporaryChatsEnforced {
				return false, domain.Errorf(domain.CodeForbidden, "this tenant keeps every chat temporary")
			}
			u.ClearTemporaryExpiresAt()
			return true, nil
		})
}

// temporaryAttempt reports whether attempt a lies in a temporary chat: as
// its run on this instance knows, or else (an attempt ended by the reaper,
// a cancel, another instance) as its conversation row says
// (feed.Service.Temporary).
func (e *Engine) temporaryAttempt(ctx context.Context, a *ent.Attempt) bool {
	if r, ok := e.running(a.ID); ok {
		return r.temporary
	}
	return e.feed.Temporary(ctx, a.ConversationID)
}

// purgeBatch bounds the temporary chats one purge pass deletes per tenant.
const purgeBatch = 1000

// purgeTemporary deletes the tenant's temporary chats whose expiry is at or
// before now, DELETED or not, with every row beneath them (the foreign
// keys cascade: messages, attempts, sources, feedback, support grants,
// conversation tags). ctx is the purge's system job. Before its rows go,
// each one's local runs are cancelled (and have recorded how they ended,
// so that their streams end FAILED(CANCELLED) as for a deletion; runs on
// other instances end by their own expiry timers) and its conversation streams, on
// every instance, get CONVERSATION_DELETED, as for a deletion; its
// owner's feed hears nothing, and no audit event names it (audit events
// written while it lived, which name only its id, stay until their own
// retention). It returns how many it deleted.
func (e *Engine) purgeTemporary(ctx context.Context, tenantID string, now time.Time) (int, error) {
	doomed, err := e.client.Conversation.Query().
		Where(conversation.TenantID(tenantID), authz.TemporaryGone(now)).
		Select(conversation.FieldID).
		Limit(purgeBatch).All(ctx)
	if err != nil {
		return 0, err
	}
	for _, c := range doomed {
		e.endLocalRuns(ctx, c.ID)
		e.feed.ConversationPurged(ctx, c.ID)
		if err := e.client.Conversation.DeleteOneID(c.ID).Exec(ctx); err != nil && !ent.IsNotFound(err) {
			return 0, err
		}
	}
	return len(doomed), nil
}

// runEndWait bounds how long the purge waits for a cancelled run to end.
const runEndWait = 15 * time.Second

// endLocalRuns cancels this instance's runs in conversation id as a
// deletion does and waits until they have ended (or runEndWait passed).
func (e *Engine) endLocalRuns(ctx context.Context, id uuid.UUID) {
	var ending []*run
	e.mu.Lock()
	for _, r := range e.runs {
		if r.conversationID == id {
			r.cancel(errDeleted)
			ending = append(ending, r)
		}
	}
	e.mu.Unlock()
	if len(ending) == 0 {
		return
	}
	wait := time.NewTimer(runEndWait)
	defer wait.Stop()
	for _, r := range ending {
		select {
		case <-r.done:
		case <-wait.C:
			return
		case <-ctx.Done():
			return
		}
	}
}
