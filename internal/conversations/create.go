package conversations

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Create starts the create of a conversation of v through c (a client's
// or a transaction's conversations) with the expiries of the tenant
// settings st counted from now: the sliding expiry after the idle TTL,
// capped by the absolute one after the maximum age.
func Create(c *ent.ConversationClient, v *viewer.Viewer, st domain.TenantSettings, now time.Time) *ent.ConversationCreate {
	abs := now.Add(st.ConversationMaxAge.Duration)
	return c.Create().
		SetUserID(v.UserID).
		SetExpiresAt(minTime(now.Add(st.ConversationIdleTTL.Duration), abs)).
		SetAbsoluteExpiresAt(abs)
}

// TemporaryExpiry returns when a new conversation asked for with
// temporary is gone under the tenant's settings st at now (nil: a normal
// conversation; docs/ENGINE.md, "Temporary chats"). Asking for a temporary
// chat where the tenant forbids them is FORBIDDEN; under ENFORCED every
// conversation is temporary.
func TemporaryExpiry(st domain.TenantSettings, temporary bool, now time.Time) (*time.Time, error) {
	switch st.TemporaryChats {
	case domain.TemporaryChatsEnforced:
		temporary = true
	case domain.TemporaryChatsForbidden:
		if temporary {
			return nil, domain.Errorf(domain.CodeForbidden, "temporary chats are turned off for this tenant").
				With("field", "temporary")
		}
	}
	if !temporary {
		return nil, nil
	}
	// Microseconds, as both databases store it, so the created
	// conversation shows the expiry every later read shows.
	at := now.Add(st.TemporaryChatRetention.Duration).UTC().Truncate(time.Microsecond)
	return &at, nil
}

// KnowledgeBase resolves the knowledge base a new conversation searches:
// id if the viewer in ctx can see it, else (id nil) the tenant's oldest.
// One the viewer cannot see is NOT_FOUND "knowledge base".
func KnowledgeBase(ctx context.Context, client *ent.Client, id *uuid.UUID) (uuid.UUID, error) {
	q := client.KnowledgeBase.Query()
	if id != nil {
		q = q.Where(knowledgebase.ID(*id))
	}
	kb, err := q.Order(ent.Asc(knowledgebase.FieldCreatedAt)).First(ctx)
	if err != nil {
		return uuid.Nil, store.DomainError(err, "knowledge base")
	}
	return kb.ID, nil
}

// SlidingExpiry is conv's expiry after a question at now: the idle TTL of
// st from now, never past conv's absolute expiry.
func SlidingExpiry(conv *ent.Conversation, st domain.TenantSettings, now time.Time) time.Time {
	return minTime(now.Add(st.ConversationIdleTTL.Duration), conv.AbsoluteExpiresAt)
}
