package chat_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/feedback"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestDeletingEndsTheRunningAnswer: deleting a conversation while its
// answer is being generated ends the attempt FAILED(CANCELLED) at once,
// although the attempt is then hidden from every reader, and restoring the
// conversation leaves it ready for the next question (not busy until the
// reaper runs). Every engine entry point answers NOT_FOUND meanwhile.
func TestDeletingEndsTheRunningAnswer(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		e.model.hold()
		defer e.model.release()
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "上传文件最大是多少？"})
		require.NoError(t, err)
		_, err = e.eng.DeleteConversation(as(alice), conv.ID, "")
		require.NoError(t, err)

		sys := viewer.SystemJobContext(context.Background(), viewer.JobPurge)
		deadline := time.Now().Add(10 * time.Second) // a hang guard only
		var att = e.db.Client.Attempt.GetX(sys, res.Attempt.ID)
		for att.Status == attempt.StatusPENDING && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
			att = e.db.Client.Attempt.GetX(sys, res.Attempt.ID)
		}
		require.Equal(t, attempt.StatusFAILED, att.Status)
		require.NotNil(t, att.FailureCode)
		assert.Equal(t, string(domain.FailureCancelled), *att.FailureCode)

		for _, v := range []*viewer.Viewer{alice, admin} {
			_, err = e.eng.SubscribeAttempt(as(v), res.Attempt.ID, 0)
			assert.Equal(t, domain.CodeNotFound, code(err), "%s: attempt stream", v.UserID)
			_, err = e.feed.SubscribeConversation(as(v), conv.ID)
			assert.Equal(t, domain.CodeNotFound, code(err), "%s: conversation stream", v.UserID)
			_, err = e.eng.Conversation(as(v), conv.ID)
			assert.Equal(t, domain.CodeNotFound, code(err), "%s: conversation", v.UserID)
		}
		_, err = e.eng.Retry(as(alice), chat.RetryInput{AttemptID: res.Attempt.ID, ClientRequestID: "again"})
		assert.Equal(t, domain.CodeNotFound, code(err), "retry")
		_, err = e.eng.Cancel(as(alice), res.Attempt.ID)
		assert.Equal(t, domain.CodeNotFound, code(err), "cancel")
		_, err = e.feedback.Submit(as(alice), feedback.Input{AttemptID: res.Attempt.ID, Rating: "UP"})
		assert.Equal(t, domain.CodeNotFound, code(err), "feedback")

		e.model.release()
		_, err = e.eng.RestoreConversation(as(alice), conv.ID)
		require.NoError(t, err)
		next := e.ask(t, alice, conv.ID, "退款多久到账？")
		assert.Equal(t, attempt.StatusCOMPLETED, next.attempt.Status, "restored and not busy")
	})
}

// TestDeletingEndsOpenStreams deletes a conversation while an answer runs
// and both of its streams are open: the attempt stream ends with FAILED
// (CANCELLED) and no row, the conversation stream with
// CONVERSATION_DELETED; both channels close, and no goroutine is left.
func TestDeletingEndsOpenStreams(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		baseline := runtime.NumGoroutine()
		conv := e.conversation(t, alice)
		e.model.hold()
		defer e.model.release()
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "上传文件最大是多少？"})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(as(alice), 20*time.Second) // a hang guard only
		defer cancel()
		attemptEvents, err := e.eng.SubscribeAttempt(ctx, res.Attempt.ID, 0)
		require.NoError(t, err)
		convEvents, err := e.feed.SubscribeConversation(ctx, conv.ID)
		require.NoError(t, err)

		_, err = e.eng.DeleteConversation(as(alice), conv.ID, "")
		require.NoError(t, err)

		var last chat.AttemptEvent
		for ev := range attemptEvents {
			last = ev
		}
		require.NoError(t, ctx.Err(), "the attempt stream ended by itself")
		assert.Equal(t, chat.EventFailed, last.Kind)
		assert.Equal(t, domain.FailureCancelled, last.FailureCode)
		assert.Nil(t, last.Attempt, "the deleted attempt's row is not sent")

		var kinds []feed.ConversationEventKind
		for ev := range convEvents {
			kinds = append(kinds, ev.Kind)
		}
		require.NoError(t, ctx.Err(), "the conversation stream ended by itself")
		require.NotEmpty(t, kinds)
		assert.Equal(t, feed.ConversationDeleted, kinds[len(kinds)-1])

		e.model.release()
		cancel()
		assert.Eventually(t, func() bool { return runtime.NumGoroutine() <= baseline+2 }, 10*time.Second, 10*time.Millisecond,
			"goroutines: baseline %d, now %d", baseline, runtime.NumGoroutine())
	})
}
