package authz

import (
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/predicate"
)

// The liveness of one loaded conversation, the same rule the privacy
// filters apply to every query (deleted.go, temporary.go), for code that
// holds a row: the engine, sharing, export and the resolvers call these
// instead of reading the columns.

// IsTemporary reports whether conv is a temporary chat (docs/API.md,
// "Temporary chats"): never listed, searched, exported, shared or
// announced on its owner's viewerEvents.
func IsTemporary(conv *ent.Conversation) bool { return conv.TemporaryExpiresAt != nil }

// TemporaryGoneAt reports whether conv is a temporary chat past its
// expiry at now: gone, like a DELETED conversation.
func TemporaryGoneAt(conv *ent.Conversation, now time.Time) bool {
	return conv.TemporaryExpiresAt != nil && !now.Before(*conv.TemporaryExpiresAt)
}

// GoneAt reports whether conv is gone at now: DELETED, or a temporary
// chat past its expiry. The privacy rules hide both; the check keeps that
// true where a context includes them, or a row was read before.
func GoneAt(conv *ent.Conversation, now time.Time) bool {
	return conv.Status == conversation.StatusDELETED || TemporaryGoneAt(conv, now)
}

// NotTemporary is the predicate of everything that lists, searches or
// exports conversations: temporary chats are never among them (their
// owner's client holds the id).
func NotTemporary() predicate.Conversation { return conversation.TemporaryExpiresAtIsNil() }

// TemporaryGone is the predicate of the temporary chats past their expiry
// at now, DELETED or not: the rows the purge deletes (the SQL form of
// TemporaryGoneAt).
func TemporaryGone(now time.Time) predicate.Conversation {
	return conversation.TemporaryExpiresAtLTE(now.UTC())
}
