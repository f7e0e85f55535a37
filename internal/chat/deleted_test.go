package chat_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
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
		res, err := e.eng.Ask(as(alice), conv.ID, uuid.NewString(), "上传文件最大是多少？")
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
			_, err = e.eng.SubscribeConversation(as(v), conv.ID)
			assert.Equal(t, domain.CodeNotFound, code(err), "%s: conversation stream", v.UserID)
			_, err = e.eng.Conversation(as(v), conv.ID)
			assert.Equal(t, domain.CodeNotFound, code(err), "%s: conversation", v.UserID)
		}
		_, err = e.eng.Retry(as(alice), res.Attempt.ID, "again")
		assert.Equal(t, domain.CodeNotFound, code(err), "retry")
		_, err = e.eng.Cancel(as(alice), res.Attempt.ID)
		assert.Equal(t, domain.CodeNotFound, code(err), "cancel")
		_, err = e.eng.SubmitFeedback(as(alice), chat.FeedbackInput{AttemptID: res.Attempt.ID, Rating: "UP"})
		assert.Equal(t, domain.CodeNotFound, code(err), "feedback")

		e.model.release()
		_, err = e.eng.RestoreConversation(as(alice), conv.ID)
		require.NoError(t, err)
		next := e.ask(t, alice, conv.ID, "退款多久到账？")
		assert.Equal(t, attempt.StatusCOMPLETED, next.attempt.Status, "restored and not busy")
	})
}
