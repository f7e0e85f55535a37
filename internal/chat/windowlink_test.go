package chat_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestWindowNeverPairsAForeignAttempt: the window pairs a question with
// its answer through the answer's attempt, which it joins by
// messages.attempt_id. When that link is corrupted on purpose (raw SQL)
// to point at an attempt of another tenant, or of another user's
// conversation, whose user_message_id is corrupted to name the question,
// the round is left out of the window: the join only takes an attempt of
// the answer's own tenant and conversation. Before it did, the round was
// paired and reached the prompt. The window stays one statement.
func TestWindowNeverPairsAForeignAttempt(t *testing.T) {
	const followUp = "那超过以后返回什么错误码？"
	forEach(t, func(t *testing.T, e *env) {
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		require.NoError(t, e.db.Client.Tenant.Create().SetID(stranger.TenantID).SetName("Globex").Exec(sys))
		demoKB := e.db.Client.KnowledgeBase.GetX(as(alice), e.kb)
		kb := e.db.Client.KnowledgeBase.Create().SetName("Globex help").
			SetEmbeddingModel(demoKB.EmbeddingModel).SetEmbeddingDimensions(demoKB.EmbeddingDimensions).SaveX(as(stranger))

		// foreignAttempt returns an attempt that v's engine run created in
		// a conversation of v's.
		foreignAttempt := func(t *testing.T, v *viewer.Viewer, in chat.CreateConversationInput) uuid.UUID {
			c, err := e.eng.CreateConversation(as(v), in)
			require.NoError(t, err)
			return e.ask(t, v, c.ID, "上传文件最大是多少？").attempt.ID
		}
		cases := []struct {
			name    string
			foreign func(t *testing.T) uuid.UUID
		}{
			// The other tenant's user has the same user id: only the
			// tenant tells the rows apart.
			{"another tenant's attempt", func(t *testing.T) uuid.UUID {
				return foreignAttempt(t, stranger, chat.CreateConversationInput{KnowledgeBaseID: &kb.ID})
			}},
			{"another user's attempt", func(t *testing.T) uuid.UUID {
				return foreignAttempt(t, bob, chat.CreateConversationInput{})
			}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				conv := e.conversation(t, alice)
				first := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
				require.Equal(t, attempt.StatusCOMPLETED, first.attempt.Status)
				chat.WaitIdle(e.eng)
				before, err := e.eng.PreviewContext(as(alice), conv.ID, followUp)
				require.NoError(t, err)
				require.Equal(t, 1, before.HistoryRounds, "the intact round is in the window")

				foreign := tc.foreign(t)
				answer := e.db.Client.Message.Query().
					Where(message.AttemptID(first.attempt.ID), message.RoleEQ(message.RoleASSISTANT)).OnlyX(as(alice))
				// attempt_id is unique: the foreign answer lets go of it first.
				exec(t, e, "UPDATE messages SET attempt_id = NULL WHERE attempt_id = ?", foreign)
				exec(t, e, "UPDATE messages SET attempt_id = ? WHERE id = ?", foreign, answer.ID)
				exec(t, e, "UPDATE attempts SET user_message_id = ? WHERE id = ?", first.attempt.UserMessageID, foreign)

				after, err := e.eng.PreviewContext(as(alice), conv.ID, followUp)
				require.NoError(t, err)
				require.Zero(t, after.HistoryRounds, "a question paired through a foreign attempt reached the prompt")
				require.Empty(t, after.Rounds)
			})
		}
	})
}

// exec runs a raw statement written with "?" placeholders ("$n" on
// PostgreSQL) behind Ent's back, which must change exactly one row.
func exec(t *testing.T, e *env, q string, args ...any) {
	t.Helper()
	if e.db.Dialect == dialect.Postgres {
		for i := range args {
			q = strings.Replace(q, "?", fmt.Sprintf("$%d", i+1), 1)
		}
	}
	res, err := e.db.SQL.ExecContext(context.Background(), q, args...)
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.EqualValues(t, 1, n, q)
}
