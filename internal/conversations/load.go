package conversations

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Load returns a conversation the viewer in ctx may see that is not gone
// at now (DELETED, or a temporary chat past its expiry: authz.GoneAt). The
// privacy rules already hide those; the check keeps that true where a
// context includes them.
func Load(ctx context.Context, client *ent.Client, id uuid.UUID, now time.Time) (*ent.Conversation, error) {
	conv, err := client.Conversation.Get(ctx, id)
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	if authz.GoneAt(conv, now) {
		return nil, domain.NotFound("conversation")
	}
	return conv, nil
}

// LoadOwn returns a conversation the viewer in ctx owns and that is not
// gone at now: even a tenant admin cannot ask, retry, cancel or rate in
// someone else's conversation. It reads only the viewer's own rows, so
// such a request reads nothing and is NOT_FOUND like an unknown id.
func LoadOwn(ctx context.Context, client *ent.Client, id uuid.UUID, now time.Time) (*ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	conv, err := client.Conversation.Query().
		Where(conversation.ID(id), conversation.UserID(v.UserID)).Only(ctx)
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	if authz.GoneAt(conv, now) {
		return nil, domain.NotFound("conversation")
	}
	return conv, nil
}

// LoadOwnAttempt returns an attempt in a conversation the viewer in ctx
// owns (LoadOwn), with the conversation. An admin acting on someone
// else's attempt reads nothing of it: the answer is NOT_FOUND "attempt",
// exactly as for an unknown id.
func LoadOwnAttempt(ctx context.Context, client *ent.Client, id uuid.UUID, now time.Time) (*ent.Attempt, *ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, nil, err
	}
	att, err := client.Attempt.Query().Where(attempt.ID(id), attempt.OwnerID(v.UserID)).Only(ctx)
	if err != nil {
		return nil, nil, store.DomainError(err, "attempt")
	}
	conv, err := LoadOwn(ctx, client, att.ConversationID, now)
	if err != nil {
		return nil, nil, domain.NotFound("attempt")
	}
	return att, conv, nil
}

// CheckOpen refuses, at now, a conversation that has expired
// (CONVERSATION_EXPIRED with expiredAt) or is archived
// (CONVERSATION_CLOSED). An expired conversation is never revived: the
// client starts a new one.
func CheckOpen(conv *ent.Conversation, now time.Time) error {
	if authz.ExpiredAt(conv, now) {
		return domain.Errorf(domain.CodeConversationExpired, "the conversation has expired; start a new one").
			With("expiredAt", minTime(conv.ExpiresAt, conv.AbsoluteExpiresAt).UTC().Format(time.RFC3339))
	}
	if conv.Status == conversation.StatusARCHIVED {
		return domain.Errorf(domain.CodeConversationClosed, "the conversation is archived and accepts no new questions")
	}
	return nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
