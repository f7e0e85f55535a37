package chat_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/llm/openai"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// fakeEnv is an engine whose answers come from the fake OpenAI-compatible
// server through the real openai adapter; mods adjust the adapter.
func fakeEnv(t *testing.T, db *store.DB, mods ...func(*openai.Config)) (*env, *llmfake.Server) {
	t.Helper()
	return fakeEnvWith(t, db, nil, nil, mods...)
}

// fakeEnvWith is fakeEnv whose engine's adapters deps edits (nil: none) and
// whose configuration opts edit.
func fakeEnvWith(t *testing.T, db *store.DB, deps func(*chat.Deps), opts []envOption, mods ...func(*openai.Config)) (*env, *llmfake.Server) {
	t.Helper()
	fake := llmfake.New()
	t.Cleanup(fake.Close)
	cfg := openai.Config{
		BaseURL: fake.URL, APIKey: "test", ChatModel: "fake-chat", EmbeddingModel: "fake-embed",
		FirstTokenTimeout: 5 * time.Second, MaxRetries: 1, RetryBaseDelay: time.Millisecond,
	}
	for _, mod := range mods {
		mod(&cfg)
	}
	m, err := openai.New(cfg)
	require.NoError(t, err)
	return newEnvDeps(t, db, m, deps, opts...), fake
}

// TestCancelClosesUpstream: cancelling an answer closes the model's HTTP
// stream (the fake server sees the client go away), and the attempt ends
// FAILED(CANCELLED) with the user message kept and no assistant message.
func TestCancelClosesUpstream(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e, fake := fakeEnv(t, db)
		fake.SetReply(strings.Repeat("根据资料，单个文件最大 20MB [C1]。", 40))
		fake.SetChunkRunes(2)
		fake.SetChunkDelay(50 * time.Millisecond)
		conv := e.conversation(t, alice)
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "k1", Question: "上传文件最大是多少？"})
		require.NoError(t, err)

		ctx, cancel := context.WithTimeout(as(alice), 20*time.Second)
		defer cancel()
		ch, err := e.eng.SubscribeAttempt(ctx, res.Attempt.ID, 0)
		require.NoError(t, err)
		for ev := range ch {
			if ev.Kind == chat.EventDelta {
				break // streaming has begun
			}
		}
		att, err := e.eng.Cancel(as(alice), res.Attempt.ID)
		require.NoError(t, err)
		assert.Equal(t, attempt.StatusFAILED, att.Status)
		assert.Equal(t, string(domain.FailureCancelled), *att.FailureCode)
		select {
		case <-fake.Disconnects():
		case <-time.After(10 * time.Second):
			t.Fatal("the upstream stream was not closed")
		}
		msgs := e.db.Client.Message.Query().Where(message.ConversationID(conv.ID)).AllX(as(alice))
		require.Len(t, msgs, 1, "the user message is kept, no assistant message")
		assert.Equal(t, message.RoleUSER, msgs[0].Role)

		// Cancelling again is a no-op; a retry answers the same message.
		again, err := e.eng.Cancel(as(alice), res.Attempt.ID)
		require.NoError(t, err)
		assert.Equal(t, attempt.StatusFAILED, again.Status)
		fake.SetChunkDelay(0)
		retry, err := e.eng.Retry(as(alice), chat.RetryInput{AttemptID: res.Attempt.ID, ClientRequestID: "r1"})
		require.NoError(t, err)
		assert.Equal(t, res.Attempt.ID, *retry.Attempt.RetryOfID)
		done := e.wait(t, alice, retry.Attempt.ID, 0)
		assert.Equal(t, attempt.StatusCOMPLETED, done.attempt.Status)
		assert.Equal(t, attempt.StatusFAILED, e.db.Client.Attempt.GetX(as(alice), res.Attempt.ID).Status, "the old attempt is untouched")
	})
}

// TestModelFailures: upstream errors end the attempt FAILED with a stable
// code and no fake assistant message.
func TestModelFailures(t *testing.T) {
	cases := []struct {
		name   string
		status int
		want   domain.FailureCode
	}{
		{"serverError", 500, domain.FailureModelError},
		{"rateLimited", 429, domain.FailureRateLimited},
	}
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e, fake := fakeEnv(t, db)
		conv := e.conversation(t, alice)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				// One request plus one retry (MaxRetries 1) both fail.
				fake.FailNext(2, llmfake.Failure{Status: tc.status})
				o := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
				assert.Equal(t, attempt.StatusFAILED, o.attempt.Status)
				assert.Equal(t, string(tc.want), *o.attempt.FailureCode)
				assert.Equal(t, chat.EventFailed, o.events[len(o.events)-1].Kind)
				assert.Equal(t, tc.want, o.events[len(o.events)-1].FailureCode)
			})
		}
		n := e.db.Client.Message.Query().Where(message.RoleEQ(message.RoleASSISTANT)).CountX(as(alice))
		assert.Zero(t, n, "no assistant message for failed attempts")
	})
}

// TestModelStallsMidAnswer: a model that sends three tokens and then goes
// silent ends the attempt FAILED(MODEL_TIMEOUT) after the inter-token idle
// timeout (not the whole-request timeout), keeping the partial answer, and
// the conversation takes the next question at once.
func TestModelStallsMidAnswer(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e, fake := fakeEnv(t, db, func(c *openai.Config) {
			c.IdleTimeout = 100 * time.Millisecond
			c.Timeout = time.Hour
		})
		fake.SetReply("根据资料，单个文件最大 20MB [C1]。")
		fake.SetChunkRunes(3)
		fake.SetStallAfter(3)
		conv := e.conversation(t, alice)
		o := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		last := o.events[len(o.events)-1]
		assert.Equal(t, chat.EventFailed, last.Kind)
		assert.Equal(t, domain.FailureModelTimeout, last.FailureCode)
		assert.Equal(t, "根据资料，单个文件", o.text, "three tokens streamed")
		a := e.db.Client.Attempt.GetX(as(alice), o.attempt.ID)
		assert.Equal(t, string(domain.FailureModelTimeout), *a.FailureCode)
		assert.Equal(t, "根据资料，单个文件", a.Answer, "the partial answer is kept")

		fake.SetStallAfter(-1)
		next := e.ask(t, alice, conv.ID, "退款多久到账？")
		assert.Equal(t, attempt.StatusCOMPLETED, next.attempt.Status, "the conversation is not left busy")
	})
}

// TestReaperInterruptsCrashedAttempt: a PENDING attempt whose instance died
// (its lease expired) is failed INTERRUPTED by the reaper of another
// instance, which a subscriber sees.
func TestReaperInterruptsCrashedAttempt(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		// A crashed instance left this behind: a user message and a PENDING
		// attempt with a lease that will expire.
		ctx := as(alice)
		e.db.Client.Conversation.UpdateOneID(conv.ID).AddLastSequenceNo(1).ExecX(ctx)
		msg := e.db.Client.Message.Create().SetConversationID(conv.ID).SetOwnerID("alice").SetSequenceNo(1).
			SetRole(message.RoleUSER).SetContent("上传文件最大是多少？").SetClientMessageID("lost").SaveX(ctx)
		crashed := e.db.Client.Attempt.Create().SetConversationID(conv.ID).SetOwnerID("alice").
			SetUserMessageID(msg.ID).SetClientRequestID("lost").SetOriginalQuestion(msg.Content).
			SetStartedAt(e.clock.now()).SetLeaseOwner("dead-instance").
			SetLeaseExpiresAt(e.clock.now().Add(30 * time.Second)).SetAnswer("部分").SetCheckpointSeq(2).SaveX(ctx)

		_, err := e.eng.Ask(ctx, chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
		assert.Equal(t, domain.CodeConversationBusy, code(err), "the crashed attempt still holds the slot")

		n, err := e.eng.ReapOnce(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n, "a live lease is not reaped")

		sub, err := e.eng.SubscribeAttempt(ctx, crashed.ID, 0)
		require.NoError(t, err)
		e.clock.advance(time.Minute)
		n, err = e.eng.ReapOnce(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		var last chat.AttemptEvent
		for ev := range sub {
			last = ev
		}
		assert.Equal(t, chat.EventFailed, last.Kind)
		assert.Equal(t, domain.FailureInterrupted, last.FailureCode)
		a := e.db.Client.Attempt.GetX(ctx, crashed.ID)
		assert.Equal(t, attempt.StatusFAILED, a.Status)
		assert.Equal(t, "部分", a.Answer, "the checkpoint is kept")
		// The conversation is usable again.
		o := e.ask(t, alice, conv.ID, "退款多久到账？")
		assert.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
	})
}

// TestLeaseLostStopsRun: if the reaper (or another instance) takes over an
// attempt, the original run stops and saves nothing; the attempt is
// resolved by whoever holds it.
func TestLeaseLostStopsRun(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		e.model.hold()
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "k", Question: "上传文件最大是多少？"})
		require.NoError(t, err)
		sys := viewer.SystemJobContext(context.Background(), viewer.JobReaper)
		require.NoError(t, e.db.Client.Attempt.UpdateOneID(res.Attempt.ID).SetLeaseOwner("other").Exec(sys))
		e.model.release()
		// Shutdown returns once every run has ended.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		require.NoError(t, e.eng.Shutdown(ctx))
		a := e.db.Client.Attempt.GetX(as(alice), res.Attempt.ID)
		assert.Equal(t, attempt.StatusPENDING, a.Status, "the run that lost its lease writes nothing")
		n := e.db.Client.Message.Query().Where(message.RoleEQ(message.RoleASSISTANT)).CountX(as(alice))
		assert.Zero(t, n)
		e.clock.advance(time.Minute)
		reaped, err := e.eng.ReapOnce(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, reaped)
	})
}

// renamedEmbedder reports another embedding model than the one the demo
// knowledge base was ingested with.
type renamedEmbedder struct{ *spyModel }

func (renamedEmbedder) EmbeddingModel() string { return "text-embedding-3-small" }

// TestEmbeddingModelMismatch: a knowledge base embedded by another model is
// not searched with incomparable vectors; the attempt fails with a message
// that says what to do.
func TestEmbeddingModelMismatch(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		eng := chat.New(chat.Config{InstanceID: "mismatch"}, chat.Deps{
			DB: db, Model: renamedEmbedder{e.model}, Broker: e.broker,
			Retriever: knowledge.NewRetriever(db, knowledge.RetrieverOptions{}),
		})
		conv, err := eng.CreateConversation(as(alice), chat.CreateConversationInput{})
		require.NoError(t, err)
		res, err := eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "k", Question: "上传文件最大是多少？"})
		require.NoError(t, err)
		ch, err := eng.SubscribeAttempt(as(alice), res.Attempt.ID, 0)
		require.NoError(t, err)
		var last chat.AttemptEvent
		for ev := range ch {
			last = ev
		}
		assert.Equal(t, chat.EventFailed, last.Kind)
		assert.Equal(t, domain.FailureModelError, last.FailureCode)
		assert.Contains(t, last.FailureMessage, "re-ingest")
		assert.Zero(t, e.model.chatCalls())
	})
}
