package chat_test

import (
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
)

// TestDuplicateClientMessageID: the same key sent by 50 goroutines at once
// gives one message, one attempt and one model call (docs/ENGINE.md D12, D17).
func TestDuplicateClientMessageID(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		key := "client-msg-001"
		var wg sync.WaitGroup
		results := make([]*chat.AskResult, 50)
		errs := make([]error, 50)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: key, Question: "上传文件最大是多少？"})
			}()
		}
		wg.Wait()
		var attemptID uuid.UUID
		fresh := 0
		for i := range results {
			require.NoError(t, errs[i])
			if attemptID == uuid.Nil {
				attemptID = results[i].Attempt.ID
			}
			assert.Equal(t, attemptID, results[i].Attempt.ID, "every caller sees the same attempt")
			if !results[i].Deduplicated {
				fresh++
			}
		}
		assert.Equal(t, 1, fresh, "exactly one caller created it")
		o := e.wait(t, alice, attemptID, 0)
		require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)

		// And after completion, the key still replays the same attempt.
		again, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: key, Question: "上传文件最大是多少？"})
		require.NoError(t, err)
		assert.True(t, again.Deduplicated)
		assert.Equal(t, attempt.StatusCOMPLETED, again.Attempt.Status)

		n := e.db.Client.Message.Query().Where(message.ConversationID(conv.ID), message.RoleEQ(message.RoleUSER)).CountX(as(alice))
		assert.Equal(t, 1, n)
		assert.Equal(t, 1, e.db.Client.Attempt.Query().CountX(as(alice)))
		assert.Equal(t, 1, e.model.chatCalls(), "one model call")

		_, err = e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: key, Question: "a different question"})
		assert.Equal(t, domain.CodeIdempotencyMismatch, code(err))
	})
}

// TestConcurrentAsks: many different questions at once in one conversation
// leave exactly one PENDING attempt; the rest are CONVERSATION_BUSY with
// its id; sequence numbers have no gaps or duplicates.
func TestConcurrentAsks(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		e.model.hold()
		var wg sync.WaitGroup
		const n = 20
		errs := make([]error, n)
		results := make([]*chat.AskResult, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
			}()
		}
		wg.Wait()
		var winner *chat.AskResult
		for i := range n {
			if errs[i] == nil {
				require.Nil(t, winner, "only one ask may win")
				winner = results[i]
				continue
			}
			assert.Equal(t, domain.CodeConversationBusy, code(errs[i]), "%v", errs[i])
		}
		require.NotNil(t, winner)
		for i := range n {
			if errs[i] != nil {
				assert.Equal(t, winner.Attempt.ID.String(), domain.ErrorDetails(errs[i])["attemptId"])
			}
		}
		assert.Equal(t, 1, e.db.Client.Attempt.Query().Where(attempt.StatusEQ(attempt.StatusPENDING)).CountX(as(alice)))
		e.model.release()
		e.wait(t, alice, winner.Attempt.ID, 0)

		// Now a sequence of asks: 1..2k with no gap.
		for range 3 {
			e.ask(t, alice, conv.ID, "退款多久到账？")
		}
		msgs := e.db.Client.Message.Query().Where(message.ConversationID(conv.ID)).
			Order(message.BySequenceNo()).AllX(as(alice))
		require.Len(t, msgs, 8)
		for i, m := range msgs {
			assert.EqualValues(t, i+1, m.SequenceNo)
		}
	})
}
