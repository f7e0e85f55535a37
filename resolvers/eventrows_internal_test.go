package resolvers

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestEventRowsAreNullOnceGone: every field of conversationEvents and
// viewerEvents that shows a row the event names answers the row while the
// viewer may read it, and null without an error once it is gone or hidden
// (a deleted row, or one the viewer may no longer read), the same in both
// streams: conversationEvents used to answer NOT_FOUND where viewerEvents
// answered null.
func TestEventRowsAreNullOnceGone(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		c := db.Client
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		require.NoError(t, c.Tenant.Create().SetID("acme").SetName("Acme").Exec(sys))
		as := func(user string, roles ...viewer.Role) context.Context {
			if roles == nil {
				roles = []viewer.Role{viewer.RoleMember}
			}
			return viewer.NewContext(context.Background(), &viewer.Viewer{TenantID: "acme", UserID: user, Roles: roles})
		}
		alice, bob := as("alice"), as("bob")
		kb := c.KnowledgeBase.Create().SetName("Help").SetEmbeddingModel("m").SetEmbeddingDimensions(1024).
			SaveX(as("carol", viewer.RoleAdmin))
		now := time.Now()
		conv := c.Conversation.Create().SetUserID("alice").SetKnowledgeBaseID(kb.ID).
			SetExpiresAt(now.Add(time.Hour)).SetAbsoluteExpiresAt(now.Add(24 * time.Hour)).SaveX(alice)
		msg := c.Message.Create().SetConversationID(conv.ID).SetOwnerID("alice").SetSequenceNo(1).
			SetRole(message.RoleUSER).SetContent("question").SetClientMessageID("c1").SaveX(alice)
		att := c.Attempt.Create().SetConversationID(conv.ID).SetOwnerID("alice").SetUserMessageID(msg.ID).
			SetOriginalQuestion("question").SetStartedAt(now).SaveX(alice)

		r := &Resolver{client: c}
		type load func(ctx context.Context, conv, msg, att uuid.UUID) (found bool, err error)
		fields := []struct {
			name string
			load load
		}{
			{"ConversationEvent.conversation", func(ctx context.Context, conv, _, _ uuid.UUID) (bool, error) {
				row, err := (&conversationEventResolver{r}).Conversation(ctx, &model.ConversationEvent{Kind: model.ConversationEventKindConversationUpdated, ConversationID: conv})
				return row != nil, err
			}},
			{"ConversationEvent.message", func(ctx context.Context, conv, msg, _ uuid.UUID) (bool, error) {
				row, err := (&conversationEventResolver{r}).Message(ctx, &model.ConversationEvent{Kind: model.ConversationEventKindMessageCreated, ConversationID: conv, MessageID: &msg})
				return row != nil, err
			}},
			{"ConversationEvent.attempt", func(ctx context.Context, conv, _, att uuid.UUID) (bool, error) {
				row, err := (&conversationEventResolver{r}).Attempt(ctx, &model.ConversationEvent{Kind: model.ConversationEventKindAttemptUpdated, ConversationID: conv, AttemptID: &att})
				return row != nil, err
			}},
			{"ViewerEvent.conversation", func(ctx context.Context, conv, _, _ uuid.UUID) (bool, error) {
				row, err := (&viewerEventResolver{r}).Conversation(ctx, &model.ViewerEvent{Kind: model.ViewerEventKindConversationUpdated, ConversationID: conv})
				return row != nil, err
			}},
			{"ViewerEvent.attempt", func(ctx context.Context, conv, _, att uuid.UUID) (bool, error) {
				row, err := (&viewerEventResolver{r}).Attempt(ctx, &model.ViewerEvent{Kind: model.ViewerEventKindAttemptUpdated, ConversationID: conv, AttemptID: &att})
				return row != nil, err
			}},
		}
		cases := []struct {
			name           string
			ctx            context.Context
			conv, msg, att uuid.UUID
			found          bool
		}{
			{"readable", alice, conv.ID, msg.ID, att.ID, true},
			{"gone", alice, uuid.New(), uuid.New(), uuid.New(), false},
			{"hidden from the viewer", bob, conv.ID, msg.ID, att.ID, false},
		}
		for _, f := range fields {
			for _, tc := range cases {
				t.Run(f.name+"/"+tc.name, func(t *testing.T) {
					found, err := f.load(tc.ctx, tc.conv, tc.msg, tc.att)
					require.NoError(t, err)
					assert.Equal(t, tc.found, found)
				})
			}
		}
	})
}
