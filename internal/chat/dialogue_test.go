package chat_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/promptfmt"
	"github.com/ragchat/ragchat/internal/sourceauth"
)

// TestSeedDialogue runs the first three scenarios of docs/ENGINE.md D17 as one conversation: a
// standalone question is not rewritten, a follow-up is rewritten with the
// earlier topic, and a topic switch is not polluted by the old topic.
func TestSeedDialogue(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)

		first := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		a := first.attempt
		require.Equal(t, attempt.StatusCOMPLETED, a.Status, "failure: %v", a.FailureMessage)
		assert.False(t, a.RequiresHistory)
		assert.Equal(t, "上传文件最大是多少？", *a.StandaloneQuestion, "a standalone question is used as is")
		assert.Contains(t, a.Answer, "20MB")
		assert.Equal(t, first.text, a.Answer, "streamed text equals the saved answer")
		assert.NotEmpty(t, promptfmt.Citations(a.Answer), "the answer cites its evidence")
		assert.Equal(t, []chat.AttemptEventKind{chat.EventStarted, chat.EventSources}, kinds(first.events)[:2])

		follow := e.ask(t, alice, conv.ID, "那超过以后返回什么错误码？")
		b := follow.attempt
		require.Equal(t, attempt.StatusCOMPLETED, b.Status)
		assert.True(t, b.RequiresHistory)
		assert.Equal(t, "那超过以后返回什么错误码？", b.OriginalQuestion, "the original question is kept")
		assert.Contains(t, *b.StandaloneQuestion, "上传文件", "the rewrite carries the earlier topic")
		assert.Contains(t, b.Answer, "ERR_FILE_TOO_LARGE")
		assert.NotContains(t, b.Answer, " > ", "heading paths are context, not answer sentences")
		m := b.ContextManifest
		require.NotNil(t, m)
		assert.Equal(t, 1, m.HistoryRounds, "the first round is in the prompt")
		assert.NotEmpty(t, m.ChunkIDs)

		sw := e.ask(t, alice, conv.ID, "PostgreSQL如何创建HNSW索引？")
		c := sw.attempt
		require.Equal(t, attempt.StatusCOMPLETED, c.Status)
		assert.False(t, c.RequiresHistory)
		assert.Equal(t, "PostgreSQL如何创建HNSW索引？", *c.StandaloneQuestion, "a topic switch is not polluted")
		assert.NotContains(t, *c.StandaloneQuestion, "上传")
		assert.Contains(t, strings.ToLower(c.Answer), "hnsw")

		// Messages: strict sequence, roles, both questions stored.
		msgs := e.db.Client.Message.Query().Where(message.ConversationID(conv.ID)).
			Order(message.BySequenceNo()).AllX(as(alice))
		require.Len(t, msgs, 6)
		for i, m := range msgs {
			assert.EqualValues(t, i+1, m.SequenceNo)
			want := message.RoleUSER
			if i%2 == 1 {
				want = message.RoleASSISTANT
			}
			assert.Equal(t, want, m.Role)
		}
		assert.Equal(t, *b.StandaloneQuestion, *msgs[2].StandaloneQuestion)
		assert.Equal(t, b.ID, *msgs[3].AttemptID)

		// Sources are saved with the cited flag, in label order.
		views, err := sourceauth.OfAttempt(as(alice), e.db.Client, b.ID)
		require.NoError(t, err)
		require.NotEmpty(t, views)
		cited := 0
		for i, v := range views {
			assert.True(t, v.Available)
			assert.Equal(t, promptfmt.Label(i+1), v.Source.Label)
			if v.Source.Cited {
				cited++
			}
		}
		assert.Positive(t, cited)
		assert.Equal(t, "上传文件最大是多少", e.db.Client.Conversation.GetX(as(alice), conv.ID).Title,
			"the title comes from the first question")
	})
}

// TestEnglishFollowUp covers the refund follow-up "and for bank cards?" (docs/ENGINE.md D5) in English.
func TestEnglishFollowUp(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		first := e.ask(t, alice, conv.ID, "How long does a refund take?")
		require.Equal(t, attempt.StatusCOMPLETED, first.attempt.Status)
		next := e.ask(t, alice, conv.ID, "and for bank cards?")
		require.Equal(t, attempt.StatusCOMPLETED, next.attempt.Status)
		assert.True(t, next.attempt.RequiresHistory)
		assert.Contains(t, strings.ToLower(*next.attempt.StandaloneQuestion), "refund")
		assert.Contains(t, strings.ToLower(next.attempt.Answer), "bank card")
	})
}

// TestRefusalWithoutEvidence: no authorised evidence above the threshold
// means a refusal without any model call.
func TestRefusalWithoutEvidence(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		o := e.ask(t, alice, conv.ID, "火星上的天气怎么样？")
		a := o.attempt
		require.Equal(t, attempt.StatusCOMPLETED, a.Status)
		require.True(t, a.Refused)
		assert.Equal(t, "NO_AUTHORIZED_EVIDENCE", *a.RefusalReason)
		assert.Zero(t, e.model.chatCalls(), "no model call for a refusal")
		assert.Equal(t, a.Answer, o.text)
	})
}

func kinds(evs []chat.AttemptEvent) []chat.AttemptEventKind {
	out := make([]chat.AttemptEventKind, len(evs))
	for i, ev := range evs {
		out[i] = ev.Kind
	}
	return out
}
