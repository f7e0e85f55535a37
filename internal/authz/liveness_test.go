package authz_test

import (
	"testing"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/authz"
)

// TestLivenessOfALoadedConversation: IsTemporary, TemporaryGoneAt and
// GoneAt decide a loaded row as the privacy filters decide a query: a
// temporary chat is gone from its expiry on (the instant included), a
// DELETED conversation always, a normal active one never.
func TestLivenessOfALoadedConversation(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { x := now.Add(d); return &x }
	for _, c := range []struct {
		name                     string
		conv                     ent.Conversation
		temporary, expired, gone bool
	}{
		{"normal", ent.Conversation{Status: conversation.StatusACTIVE}, false, false, false},
		{"archived", ent.Conversation{Status: conversation.StatusARCHIVED}, false, false, false},
		{"deleted", ent.Conversation{Status: conversation.StatusDELETED}, false, false, true},
		{"temporary, live", ent.Conversation{Status: conversation.StatusACTIVE, TemporaryExpiresAt: at(time.Second)}, true, false, false},
		{"temporary, at its expiry", ent.Conversation{Status: conversation.StatusACTIVE, TemporaryExpiresAt: at(0)}, true, true, true},
		{"temporary, past it", ent.Conversation{Status: conversation.StatusACTIVE, TemporaryExpiresAt: at(-time.Hour)}, true, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := authz.IsTemporary(&c.conv); got != c.temporary {
				t.Errorf("IsTemporary = %v, want %v", got, c.temporary)
			}
			if got := authz.TemporaryGoneAt(&c.conv, now); got != c.expired {
				t.Errorf("TemporaryGoneAt = %v, want %v", got, c.expired)
			}
			if got := authz.GoneAt(&c.conv, now); got != c.gone {
				t.Errorf("GoneAt = %v, want %v", got, c.gone)
			}
		})
	}
}
