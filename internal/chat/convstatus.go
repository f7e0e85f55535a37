package chat

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

// ConversationStatus returns the status conv reads as now.
func (e *Engine) ConversationStatus(conv *ent.Conversation) conversation.Status {
	return statusAt(conv, e.now())
}

// statusAt returns the status conv reads as at now.
func statusAt(conv *ent.Conversation, now time.Time) conversation.Status {
	if conv.Status != conversation.StatusDELETED && expiredAt(conv, now) {
		return conversation.StatusEXPIRED
	}
	return conv.Status
}

// expiredAt reports whether conv is past its sliding expiry or its
// absolute cap at now (the rule checkOpen applies to new questions).
func expiredAt(conv *ent.Conversation, now time.Time) bool {
	return !now.Before(conv.ExpiresAt) || !now.Before(conv.AbsoluteExpiresAt)
}

// ConversationStatusIs returns the predicate "the conversation reads as
// status s now", for filters: the SQL form of ConversationStatus.
func (e *Engine) ConversationStatusIs(s conversation.Status) predicate.Conversation {
	now := e.now()
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

// ConversationStatusIn returns the predicate "the conversation reads as one
// of ss now"; an empty ss matches nothing.
func (e *Engine) ConversationStatusIn(ss ...conversation.Status) predicate.Conversation {
	ps := make([]predicate.Conversation, 0, len(ss))
	for _, s := range ss {
		ps = append(ps, e.ConversationStatusIs(s))
	}
	if len(ps) == 0 {
		// Matches no row.
		return conversation.And(conversation.StatusEQ(conversation.StatusACTIVE), conversation.StatusNEQ(conversation.StatusACTIVE))
	}
	return conversation.Or(ps...)
}
