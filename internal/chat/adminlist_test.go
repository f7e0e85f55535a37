package chat_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/adminreport"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
)

// TestAdminConversationsDecidesTheDeletedListing: the engine alone decides
// whether an admin's listing shows DELETED conversations. Only the admin
// filter for that status lists them, and then their messages show in the
// whole deleted-rows scope the call ran in (the GraphQL field's subtree),
// not in another one; any other filter leaves the scope closed. Members
// are FORBIDDEN.
func TestAdminConversationsDecidesTheDeletedListing(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		gone := e.conversation(t, alice)
		e.ask(t, alice, gone.ID, "上传文件最大是多少？")
		live := e.conversation(t, alice)
		_, err := e.eng.DeleteConversation(as(alice), gone.ID, "")
		require.NoError(t, err)

		deleted, active := conversation.StatusDELETED, conversation.StatusACTIVE
		cases := []struct {
			name   string
			filter adminreport.ConversationFilter
			listed []uuid.UUID
			opens  bool // the scope shows the DELETED conversation's messages afterwards
		}{
			{"no filter", adminreport.ConversationFilter{}, []uuid.UUID{live.ID}, false},
			{"ACTIVE", adminreport.ConversationFilter{Status: &active}, []uuid.UUID{live.ID}, false},
			{"DELETED", adminreport.ConversationFilter{Status: &deleted}, []uuid.UUID{gone.ID}, true},
			{"DELETED of another user", adminreport.ConversationFilter{Status: &deleted, UserID: &bob.UserID}, nil, true},
		}
		messagesOfGone := func(ctx context.Context) int {
			return e.db.Client.Message.Query().Where(message.ConversationID(gone.ID)).CountX(ctx)
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				scope := authz.WithDeletedScope(as(admin))
				qctx, q, err := adminreport.Conversations(scope, e.db.Client, tc.filter, e.clock.now())
				require.NoError(t, err)
				ids, err := q.IDs(qctx)
				require.NoError(t, err)
				assert.ElementsMatch(t, tc.listed, ids)
				if tc.opens {
					assert.Equal(t, 2, messagesOfGone(scope), "the question and its answer show in the scope")
				} else {
					assert.Zero(t, messagesOfGone(scope), "the scope stays closed")
				}
				assert.Zero(t, messagesOfGone(authz.WithDeletedScope(as(admin))), "another scope stays closed")
			})
		}

		_, _, err = adminreport.Conversations(authz.WithDeletedScope(as(alice)), e.db.Client, adminreport.ConversationFilter{Status: &deleted}, e.clock.now())
		assert.Equal(t, domain.CodeForbidden, code(err), "%v", err)
	})
}
