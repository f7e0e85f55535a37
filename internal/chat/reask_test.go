package chat_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge"
)

// TestReask: a reask asks the stale attempt's standalone question again
// as a new question on the current branch whose attempt links to the stale
// one; a repeated key replays it, a key of another request is
// IDEMPOTENCY_MISMATCH, and another user's attempt is NOT_FOUND.
func TestReask(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		doc, att := staleCase(t, e, alice, "reask", knowledge.ACL{})
		reingest(t, e, doc, staleDoc("reask", "77"), knowledge.ACL{})
		res, err := e.eng.Reask(as(alice), chat.RetryInput{AttemptID: att.ID, ClientRequestID: "reask-1"})
		require.NoError(t, err)
		require.NotNil(t, res.Attempt.ReaskOfID)
		assert.Equal(t, att.ID, *res.Attempt.ReaskOfID)
		want := att.OriginalQuestion
		if att.StandaloneQuestion != nil {
			want = *att.StandaloneQuestion
		}
		assert.Equal(t, want, res.UserMessage.Content, "the standalone question is asked again")
		assert.Equal(t, att.ConversationID, res.Attempt.ConversationID)
		done := e.wait(t, alice, res.Attempt.ID, 0)
		assert.Equal(t, "COMPLETED", string(done.attempt.Status))
		conv := e.db.Client.Conversation.GetX(as(alice), att.ConversationID)
		require.NotNil(t, conv.CurrentLeafID)

		again, err := e.eng.Reask(as(alice), chat.RetryInput{AttemptID: att.ID, ClientRequestID: "reask-1"})
		require.NoError(t, err)
		assert.True(t, again.Deduplicated)
		assert.Equal(t, res.Attempt.ID, again.Attempt.ID)

		other := e.ask(t, alice, att.ConversationID, "Something else entirely?")
		_, err = e.eng.Reask(as(alice), chat.RetryInput{AttemptID: other.attempt.ID, ClientRequestID: "reask-1"})
		assert.Equal(t, domain.CodeIdempotencyMismatch, code(err), "the key names another reask")

		_, err = e.eng.Reask(as(bob), chat.RetryInput{AttemptID: att.ID, ClientRequestID: "reask-2"})
		assert.Equal(t, domain.CodeNotFound, code(err), "another user's attempt")
		_, err = e.eng.Reask(as(alice), chat.RetryInput{AttemptID: uuid.New(), ClientRequestID: "reask-3"})
		assert.Equal(t, domain.CodeNotFound, code(err), "an unknown attempt")
	})
}
