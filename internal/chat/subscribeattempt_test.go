package chat_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// TestResumeMidStream: a client that disconnects mid-answer and resumes
// with afterSeq = the last seq it applied gets exactly the missing text,
// with no gap or duplicate, both while the answer streams and after.
func TestResumeMidStream(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e, fake := fakeEnv(t, db)
		fake.SetReply(strings.Repeat("单个上传文件最大为 20MB [C1]。", 20))
		fake.SetChunkRunes(3)
		fake.SetChunkDelay(5 * time.Millisecond)
		conv := e.conversation(t, alice)
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "k", Question: "上传文件最大是多少？"})
		require.NoError(t, err)

		// First connection: read a few deltas, then drop.
		ctx, cancel := context.WithCancel(as(alice))
		ch, err := e.eng.SubscribeAttempt(ctx, res.Attempt.ID, 0)
		require.NoError(t, err)
		var got strings.Builder
		seq := 0
		for ev := range ch {
			if ev.Kind == chat.EventDelta {
				got.WriteString(ev.Text)
				seq = ev.Seq
				if seq >= 30 {
					break
				}
			}
		}
		cancel()
		for range ch { // the channel closes once the client is gone
		}
		require.GreaterOrEqual(t, seq, 30)

		// Resume live.
		rest := e.wait(t, alice, res.Attempt.ID, seq)
		got.WriteString(rest.text)
		require.Equal(t, attempt.StatusCOMPLETED, rest.attempt.Status)
		assert.Equal(t, rest.attempt.Answer, got.String(), "no gap, no duplicate")

		// Resume after completion, from the middle and from the end.
		replay := e.wait(t, alice, res.Attempt.ID, 10)
		assert.Equal(t, string([]rune(rest.attempt.Answer)[10:]), replay.text)
		end := e.wait(t, alice, res.Attempt.ID, len([]rune(rest.attempt.Answer)))
		assert.Empty(t, end.text)
		assert.Equal(t, chat.EventCompleted, end.events[len(end.events)-1].Kind)
	})
}

// TestSubscriptionsReleaseGoroutines: 200 subscribe/disconnect cycles leave
// the goroutine count at its baseline.
func TestSubscriptionsReleaseGoroutines(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		done := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		e.model.hold()
		res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "pending", Question: "退款多久到账？"})
		require.NoError(t, err)
		baseline := runtime.NumGoroutine()
		for i := range 200 {
			ctx, cancel := context.WithCancel(as(alice))
			id := res.Attempt.ID
			if i%2 == 0 {
				id = done.attempt.ID
			}
			ch, err := e.eng.SubscribeAttempt(ctx, id, 0)
			require.NoError(t, err)
			if i%3 == 0 {
				cch, err := e.feed.SubscribeConversation(ctx, conv.ID)
				require.NoError(t, err)
				defer func() {
					for range cch {
					}
				}()
			}
			cancel()
			for range ch {
			}
		}
		assert.Eventually(t, func() bool { return runtime.NumGoroutine() <= baseline+2 }, 10*time.Second, 10*time.Millisecond,
			"goroutines: baseline %d, now %d", baseline, runtime.NumGoroutine())
		e.model.release()
		e.wait(t, alice, res.Attempt.ID, 0)
	})
}

// TestConversationEvents: a second tab sees messages and attempt changes.
func TestConversationEvents(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		ctx, cancel := context.WithTimeout(as(alice), 20*time.Second)
		defer cancel()
		ch, err := e.feed.SubscribeConversation(ctx, conv.ID)
		require.NoError(t, err)
		e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		var msgs, completed int
		for ev := range ch {
			switch ev.Kind {
			case feed.ConversationMessageCreated:
				msgs++
			case feed.ConversationAttemptUpdated:
				if ev.AttemptStatus == "COMPLETED" {
					completed++
				}
			}
			if msgs == 2 && completed == 1 {
				cancel()
			}
		}
		assert.Equal(t, 2, msgs)
		assert.Equal(t, 1, completed)
		_, err = e.feed.SubscribeConversation(as(bob), conv.ID)
		assert.Equal(t, "NOT_FOUND", string(code(err)))
	})
}
