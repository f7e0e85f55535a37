package authz

import (
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/predicate"
)

// A conversation's status as clients read it (docs/API.md, "Conversation
// status"). The stored column holds ACTIVE, ARCHIVED or DELETED. EXPIRED is
// never stored: a conversation that is not DELETED reads as EXPIRED from
// the moment its sliding expiry (expires_at) or its absolute cap
// (absolute_expires_at) has passed. Computing it on read makes the status
// and every status filter exact at any instant, with no sweep whose lag
// would let an expired conversation read ACTIVE, and without bumping the
// version or emitting events for a change nobody made.

// StatusAt returns the status conv reads as at now.
func StatusAt(conv *ent.Conversation, now time.Time) conversation.Status {
	if conv.Status != conversation.StatusDELETED && ExpiredAt(conv, now) {
		return conversation.StatusEXPIRED
	}
	return conv.Status
}

// ExpiredAt reports whether conv is past its sliding expiry or its
// absolute cap at now (the rule the engine's checkOpen applies to new
// questions).
func ExpiredAt(conv *ent.Conversation, now time.Time) bool {
	return !now.Before(conv.ExpiresAt) || !now.Before(conv.AbsoluteExpiresAt)
}

// StatusIs returns the predicate "the conversation reads as status s at
// now", for filters: the SQL form of StatusAt.
func StatusIs(s conversation.Status, now time.Time) predicate.Conversation {
	expired := conversation.Or(conversation.ExpiresAtLTE(now), conversation.AbsoluteExpiresAtLTE(now))
	live := conversation.And(conversation.ExpiresAtGT(now), conversation.AbsoluteExpiresAtGT(now))
	switch s {
	case conversation.StatusEXPIRED:
		return conversation.And(conversation.StatusNEQ(conversation.StatusDELETED), expired)
	case conversation.StatusDELETED:
		return conversation.StatusEQ(conversation.StatusDELETED)
	default:
		return conversation.And(conversation.StatusEQ(s), live)
	}
}

// StatusIn returns the predicate "the conversation reads as one of ss at
// now"; an empty ss matches nothing.
func StatusIn(now time.Time, ss ...conversation.Status) predicate.Conversation {
	ps := make([]predicate.Conversation, 0, len(ss))
	for _, s := range ss {
		ps = append(ps, StatusIs(s, now))
	}
	if len(ps) == 0 {
		// Matches no row.
		return conversation.And(conversation.StatusEQ(conversation.StatusACTIVE), conversation.StatusNEQ(conversation.StatusACTIVE))
	}
	return conversation.Or(ps...)
}
