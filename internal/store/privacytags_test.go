package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// TestPrivacyConversationTagCreates: a conversation_tags row needs the
// viewer's own tag on the viewer's own live conversation. Bob cannot tag
// alice's conversation with his tag or hers, alice cannot use bob's tag,
// an admin cannot tag a member's conversation, nobody can claim another
// owner_id, and a user of another tenant claiming alice's id (mallory)
// reaches nothing; alice's own row is created.
func TestPrivacyConversationTagCreates(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		c := db.Client
		f := seed(t, c)
		aliceTag := c.Tag.Create().SetUserID("alice").SetName("mine").SaveX(as(alice))
		bobTag := c.Tag.Create().SetUserID("bob").SetName("his").SaveX(as(bob))
		carolTag := c.Tag.Create().SetUserID("carol").SetName("admin's").SaveX(as(carol))
		bobConv := c.Conversation.Create().SetUserID("bob").SetKnowledgeBaseID(f.KBA).
			SetExpiresAt(time.Now()).SetAbsoluteExpiresAt(time.Now()).SaveX(as(bob))
		cases := []struct {
			name  string
			run   func() error
			allow bool
		}{
			{"bobTagsAlicesConversation", func() error {
				return c.ConversationTag.Create().SetConversationID(f.ConvAlice).SetTagID(bobTag.ID).SetOwnerID("bob").Exec(as(bob))
			}, false},
			{"bobUsesAlicesTagAsAlice", func() error {
				return c.ConversationTag.Create().SetConversationID(f.ConvAlice).SetTagID(aliceTag.ID).SetOwnerID("alice").Exec(as(bob))
			}, false},
			{"aliceUsesBobsTag", func() error {
				return c.ConversationTag.Create().SetConversationID(f.ConvAlice).SetTagID(bobTag.ID).SetOwnerID("alice").Exec(as(alice))
			}, false},
			{"aliceTagsBobsConversation", func() error {
				return c.ConversationTag.Create().SetConversationID(bobConv.ID).SetTagID(aliceTag.ID).SetOwnerID("alice").Exec(as(alice))
			}, false},
			{"adminTagsAMembersConversation", func() error {
				return c.ConversationTag.Create().SetConversationID(f.ConvAlice).SetTagID(carolTag.ID).SetOwnerID("carol").Exec(as(carol))
			}, false},
			{"malloryClaimsAlice", func() error {
				return c.ConversationTag.Create().SetConversationID(f.ConvAlice).SetTagID(aliceTag.ID).SetOwnerID("alice").Exec(as(mallory))
			}, false},
			{"aliceTagsHerOwn", func() error {
				return c.ConversationTag.Create().SetConversationID(f.ConvAlice).SetTagID(aliceTag.ID).SetOwnerID("alice").Exec(as(alice))
			}, true},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				err := tc.run()
				if tc.allow {
					require.NoError(t, err)
					return
				}
				require.Error(t, err)
				assert.True(t, errors.Is(err, privacy.Deny), "want a privacy denial, got %v", err)
			})
		}
	})
}
