package chat_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/adminreport"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feedback"
	"github.com/ragchat/ragchat/internal/viewer"
)

var stranger = &viewer.Viewer{TenantID: "globex", UserID: "alice", Roles: []viewer.Role{viewer.RoleAdmin}}

// TestConversationAccess: wrong tenant, wrong owner, deleted or unknown are
// all NOT_FOUND; expired is CONVERSATION_EXPIRED and never revived;
// archived refuses new questions.
func TestConversationAccess(t *testing.T) {
	shortTTL := func(_ *chat.Config, st *domain.TenantSettings) {
		st.ConversationIdleTTL = domain.Duration{Duration: time.Hour}
		st.ConversationMaxAge = domain.Duration{Duration: 24 * time.Hour}
	}
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		cases := []struct {
			name string
			v    *viewer.Viewer
			id   uuid.UUID
		}{
			{"otherTenant", stranger, conv.ID},
			{"otherOwner", bob, conv.ID},
			{"unknown", alice, uuid.New()},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := e.eng.Ask(as(tc.v), chat.AskInput{ConversationID: tc.id, ClientMessageID: "k", Question: "上传文件最大是多少？"})
				assert.Equal(t, domain.CodeNotFound, code(err))
				_, err = e.eng.Conversation(as(tc.v), tc.id)
				assert.Equal(t, domain.CodeNotFound, code(err))
				_, err = e.eng.RenameConversation(as(tc.v), tc.id, "x")
				assert.Equal(t, domain.CodeNotFound, code(err))
				_, err = e.feed.SubscribeConversation(as(tc.v), tc.id)
				assert.Equal(t, domain.CodeNotFound, code(err))
			})
		}

		t.Run("adminReadIsAudited", func(t *testing.T) {
			_, err := e.eng.Conversation(as(admin), conv.ID)
			require.NoError(t, err)
			n := e.db.Client.AuditEvent.Query().Where(auditevent.Action("conversation.admin_read")).CountX(as(admin))
			assert.Equal(t, 1, n)
			_, err = e.eng.Ask(as(admin), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "k", Question: "上传文件最大是多少？"})
			assert.Equal(t, domain.CodeNotFound, code(err), "even an admin cannot ask in someone else's conversation")
		})

		t.Run("expired", func(t *testing.T) {
			c := e.conversation(t, alice)
			e.ask(t, alice, c.ID, "上传文件最大是多少？")
			e.clock.advance(2 * time.Hour)
			defer e.clock.advance(-2 * time.Hour)
			_, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: c.ID, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
			assert.Equal(t, domain.CodeConversationExpired, code(err))
			got := e.db.Client.Conversation.GetX(as(alice), c.ID)
			assert.True(t, got.ExpiresAt.Before(e.clock.now()), "expiry is not extended by a refused ask")
		})
		t.Run("absoluteCap", func(t *testing.T) {
			c := e.conversation(t, alice)
			for range 3 { // sliding renewals cannot pass the cap
				e.clock.advance(50 * time.Minute)
				e.ask(t, alice, c.ID, "上传文件最大是多少？")
			}
			e.clock.advance(22 * time.Hour)
			defer e.clock.advance(-(22*time.Hour + 150*time.Minute))
			_, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: c.ID, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
			assert.Equal(t, domain.CodeConversationExpired, code(err))
		})
		t.Run("archived", func(t *testing.T) {
			c := e.conversation(t, alice)
			_, err := e.eng.ArchiveConversation(as(alice), c.ID)
			require.NoError(t, err)
			_, err = e.eng.Ask(as(alice), chat.AskInput{ConversationID: c.ID, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
			assert.Equal(t, domain.CodeConversationClosed, code(err))
			got, err := e.eng.Conversation(as(alice), c.ID)
			require.NoError(t, err, "archived conversations stay readable")
			assert.Equal(t, conversation.StatusARCHIVED, got.Status)
		})
		t.Run("deleteAndRestore", func(t *testing.T) {
			c := e.conversation(t, alice)
			o := e.ask(t, alice, c.ID, "上传文件最大是多少？")
			_, err := e.eng.DeleteConversation(as(alice), c.ID, "privacy request")
			require.NoError(t, err)
			_, err = e.eng.Conversation(as(alice), c.ID)
			assert.Equal(t, domain.CodeNotFound, code(err))
			_, err = e.eng.Ask(as(alice), chat.AskInput{ConversationID: c.ID, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
			assert.Equal(t, domain.CodeNotFound, code(err))
			_, err = e.feedback.Submit(as(alice), feedback.Input{AttemptID: o.attempt.ID, Rating: "UP"})
			assert.Equal(t, domain.CodeNotFound, code(err), "rows beneath a deleted conversation are gone too")
			_, err = e.eng.RestoreConversation(as(bob), c.ID)
			assert.Equal(t, domain.CodeNotFound, code(err))
			_, err = e.eng.RestoreConversation(as(alice), c.ID)
			require.NoError(t, err)
			got, err := e.eng.Conversation(as(alice), c.ID)
			require.NoError(t, err)
			assert.Equal(t, conversation.StatusACTIVE, got.Status)
			n := e.db.Client.AuditEvent.Query().Where(auditevent.TargetID(c.ID.String())).CountX(as(admin))
			assert.Equal(t, 2, n, "delete and restore are audited")
		})
	}, shortTTL)
}

// TestFeedbackRules: feedback only on a COMPLETED attempt in a conversation
// the viewer owns, one per user per attempt (a second replaces the first).
func TestFeedbackRules(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		done := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		e.model.hold()
		pending, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
		require.NoError(t, err)

		_, err = e.feedback.Submit(as(alice), feedback.Input{AttemptID: pending.Attempt.ID, Rating: "UP"})
		assert.Equal(t, domain.CodeBadUserInput, code(err), "no feedback on a pending answer")
		_, err = e.feedback.Submit(as(bob), feedback.Input{AttemptID: done.attempt.ID, Rating: "UP"})
		assert.Equal(t, domain.CodeNotFound, code(err))
		_, err = e.feedback.Submit(as(admin), feedback.Input{AttemptID: done.attempt.ID, Rating: "UP"})
		assert.Equal(t, domain.CodeNotFound, code(err), "admins read but do not rate others' answers")
		_, err = e.feedback.Submit(as(alice), feedback.Input{AttemptID: done.attempt.ID, Rating: "MEH"})
		assert.Equal(t, domain.CodeBadUserInput, code(err))
		_, err = e.feedback.Submit(as(alice), feedback.Input{AttemptID: done.attempt.ID, Rating: "DOWN", Reasons: []domain.FeedbackReason{"BOGUS"}})
		assert.Equal(t, domain.CodeBadUserInput, code(err))

		c := "too vague"
		fb, err := e.feedback.Submit(as(alice), feedback.Input{AttemptID: done.attempt.ID, Rating: "DOWN",
			Reasons: []domain.FeedbackReason{domain.ReasonIncomplete, domain.ReasonIncomplete}, Comment: &c})
		require.NoError(t, err)
		assert.Equal(t, []domain.FeedbackReason{domain.ReasonIncomplete}, fb.ReasonCodes)
		fb2, err := e.feedback.Submit(as(alice), feedback.Input{AttemptID: done.attempt.ID, Rating: "UP"})
		require.NoError(t, err)
		assert.Equal(t, fb.ID, fb2.ID, "one feedback per user and attempt")
		assert.Nil(t, fb2.Comment)
		assert.Equal(t, 1, e.db.Client.Feedback.Query().CountX(as(alice)))

		sum, err := adminreport.Feedback(as(admin), e.db.Client, e.clock.now().Add(-time.Hour), e.clock.now().Add(time.Hour))
		require.NoError(t, err)
		assert.Equal(t, 1, sum.Up)
		_, err = adminreport.Feedback(as(alice), e.db.Client, e.clock.now().Add(-time.Hour), e.clock.now().Add(time.Hour))
		assert.Equal(t, domain.CodeForbidden, code(err))
		usage, err := e.quota.UsageSummary(as(admin), e.clock.now().Add(-time.Hour), e.clock.now().Add(time.Hour))
		require.NoError(t, err)
		require.Len(t, usage, 1)
		assert.Equal(t, 1, usage[0].Attempts)
		assert.Positive(t, usage[0].TotalTokens)
		e.model.release()
		e.wait(t, alice, pending.Attempt.ID, 0)
	})
}

// TestRetryLineage: retries point at the attempt they retry, leave it
// untouched, answer the same user message and are idempotent.
func TestRetryLineage(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		first := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		r1, err := e.eng.Retry(as(alice), chat.RetryInput{AttemptID: first.attempt.ID, ClientRequestID: "retry-1"})
		require.NoError(t, err)
		again, err := e.eng.Retry(as(alice), chat.RetryInput{AttemptID: first.attempt.ID, ClientRequestID: "retry-1"})
		require.NoError(t, err)
		assert.True(t, again.Deduplicated)
		assert.Equal(t, r1.Attempt.ID, again.Attempt.ID)
		second := e.wait(t, alice, r1.Attempt.ID, 0)
		assert.Equal(t, first.attempt.UserMessageID, second.attempt.UserMessageID)
		assert.Equal(t, first.attempt.ID, *second.attempt.RetryOfID)
		orig := e.db.Client.Attempt.GetX(as(alice), first.attempt.ID)
		assert.Equal(t, first.attempt.Answer, orig.Answer)
		assert.Equal(t, first.attempt.UpdatedAt.UnixMilli(), orig.UpdatedAt.UnixMilli(), "the old attempt is untouched")
		_, err = e.eng.Retry(as(alice), chat.RetryInput{AttemptID: second.attempt.ID, ClientRequestID: "retry-1"})
		assert.Equal(t, domain.CodeIdempotencyMismatch, code(err))
		_, err = e.eng.Retry(as(bob), chat.RetryInput{AttemptID: first.attempt.ID, ClientRequestID: "x"})
		assert.Equal(t, domain.CodeNotFound, code(err))
		// History pairs a question with its latest answer only.
		n := e.db.Client.Message.Query().Where(message.ConversationID(conv.ID)).CountX(as(alice))
		assert.Equal(t, 3, n, "one question, two answers")
		next := e.ask(t, alice, conv.ID, "那超过以后返回什么错误码？")
		assert.Equal(t, 1, next.attempt.ContextManifest.HistoryRounds)
	})
}

// TestInputValidation: bad input gets a typed error and saves nothing.
func TestInputValidation(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		long := make([]rune, chat.DefaultLimits().QuestionChars+1)
		for i := range long {
			long[i] = '问'
		}
		cases := []struct{ name, key, q string }{
			{"emptyQuestion", "k", "   "},
			{"tooLong", "k", string(long)},
			{"invalidUTF8", "k", "abc\xff"},
			{"missingKey", "", "上传文件最大是多少？"},
		}
		for _, tc := range cases {
			_, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: tc.key, Question: tc.q})
			assert.Equal(t, domain.CodeBadUserInput, code(err), tc.name)
		}
		assert.Zero(t, e.db.Client.Message.Query().CountX(as(alice)))
		_, err := e.eng.Ask(context.Background(), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "k", Question: "x"})
		assert.Equal(t, domain.CodeUnauthenticated, code(err))
	})
}
