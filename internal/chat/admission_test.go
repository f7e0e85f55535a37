package chat_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/admission"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// countingChat answers offline but holds every answer's stream open until
// released, and counts the answers streaming at once and at most.
type countingChat struct {
	llm.Chat
	release chan struct{}

	mu           sync.Mutex
	now, most, n int
}

func (c *countingChat) ChatStream(ctx context.Context, req llm.ChatRequest) (llm.Stream, error) {
	c.mu.Lock()
	c.now++
	c.n++
	c.most = max(c.most, c.now)
	c.mu.Unlock()
	done := func() {
		c.mu.Lock()
		c.now--
		c.mu.Unlock()
	}
	select {
	case <-c.release:
	case <-ctx.Done():
		done()
		return nil, llm.ContextError(ctx.Err())
	}
	s, err := c.Chat.ChatStream(ctx, req)
	if err != nil {
		done()
		return nil, err
	}
	return &countedStream{Stream: s, done: done}, nil
}

func (c *countingChat) counts() (now, most, calls int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now, c.most, c.n
}

// countedStream reports its end once.
type countedStream struct {
	llm.Stream
	once sync.Once
	done func()
}

func (s *countedStream) Close() error {
	s.once.Do(s.done)
	return s.Stream.Close()
}

// eventually polls cond until it holds or a generous deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAdmissionBoundsRunningAnswers: with a bound of B running answers and
// a queue of B, 3B asks at once (asks, retries, edits and reasks share the
// gate) run at most B answers at once, counted at the model; B wait in the
// queue, first in first out; the last B are refused with UNAVAILABLE and
// retryAfterSeconds and write nothing; a cancelled queued ask leaves the
// queue and writes nothing; once the answers end every queued ask runs, and
// the goroutines return to their baseline.
func TestAdmissionBoundsRunningAnswers(t *testing.T) {
	const bound = 2
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		cc := &countingChat{Chat: offline.New(offline.Options{TokenDelay: -1}), release: make(chan struct{})}
		e := newEnvWith(t, db, cc, func(c *chat.Config, _ *domain.TenantSettings) {
			c.Admission = admission.Config{Limit: bound, Queue: bound, MaxWait: time.Minute}
		})
		baseline := runtime.NumGoroutine()

		type result struct {
			res *chat.AskResult
			err error
		}
		askIn := func(ctx context.Context) (uuid.UUID, chan result) {
			conv := e.conversation(t, alice)
			ch := make(chan result, 1)
			go func() {
				res, err := e.eng.Ask(ctx, chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
				ch <- result{res, err}
			}()
			return conv.ID, ch
		}
		messages := func(conv uuid.UUID) int {
			return e.db.Client.Message.Query().Where(message.ConversationID(conv)).CountX(as(alice))
		}

		// B asks run: their answers reach the model and are held there.
		var running []chan result
		for range bound {
			_, ch := askIn(as(alice))
			running = append(running, ch)
		}
		eventually(t, "the first answers stream", func() bool { _, _, n := cc.counts(); return n == bound })

		// B more wait in the queue, in order; one of them is cancelled.
		var queued []chan result
		cctx, cancel := context.WithCancel(as(alice))
		cancelledConv, cancelled := askIn(cctx)
		eventually(t, "the first waits", func() bool { return chat.AdmissionStats(e.eng).Queued == 1 })
		for range bound - 1 {
			_, ch := askIn(as(alice))
			queued = append(queued, ch)
		}
		eventually(t, "the queue is full", func() bool { return chat.AdmissionStats(e.eng).Queued == bound })

		// The rest are refused at once, and write nothing.
		for range bound {
			conv, ch := askIn(as(alice))
			r := <-ch
			require.Equal(t, domain.CodeUnavailable, code(r.err), "%v", r.err)
			secs, _ := domain.ErrorDetails(r.err)["retryAfterSeconds"].(int)
			assert.GreaterOrEqual(t, secs, 1, "a refusal says when to retry")
			assert.Equal(t, 0, messages(conv), "a refused ask writes nothing")
		}
		assert.Equal(t, admission.Stats{Running: bound, Queued: bound}, chat.AdmissionStats(e.eng))

		// The cancelled ask leaves the queue, writes nothing, and frees its
		// place for another.
		cancel()
		r := <-cancelled
		require.True(t, errors.Is(r.err, context.Canceled), "%v", r.err)
		assert.Equal(t, 0, messages(cancelledConv))
		eventually(t, "the cancelled ask leaves", func() bool { return chat.AdmissionStats(e.eng).Queued == bound-1 })
		_, ch := askIn(as(alice))
		queued = append(queued, ch)
		eventually(t, "its place is taken", func() bool { return chat.AdmissionStats(e.eng).Queued == bound })

		// The answers end; every queued ask then runs, never more than B at
		// once.
		close(cc.release)
		var ids []uuid.UUID
		for _, ch := range append(running, queued...) {
			r := <-ch
			require.NoError(t, r.err)
			ids = append(ids, r.res.Attempt.ID)
		}
		for _, id := range ids {
			o := e.wait(t, alice, id, 0)
			assert.Equal(t, "COMPLETED", string(o.attempt.Status))
		}
		_, most, calls := cc.counts()
		assert.Equal(t, bound, most, "answers streaming at once")
		assert.Equal(t, 2*bound, calls)
		eventually(t, "the gate empties", func() bool { return chat.AdmissionStats(e.eng) == admission.Stats{} })
		eventually(t, "the goroutines return to their baseline", func() bool { return runtime.NumGoroutine() <= baseline })
	})
}

// TestAdmissionGatesRetriesAndEdits: retries and edits pass the same gate
// as asks: with the one slot taken and no queue, they are refused with
// UNAVAILABLE and write nothing.
func TestAdmissionGatesRetriesAndEdits(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		done := e.ask(t, alice, conv.ID, "退款多久到账？")
		eventually(t, "its slot is released", func() bool { return chat.AdmissionStats(e.eng).Running == 0 })

		e.model.hold()
		other := e.conversation(t, alice)
		held, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: other.ID, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
		require.NoError(t, err)
		eventually(t, "the held answer streams", func() bool { return e.model.chatCalls() == 2 })

		before := e.db.Client.Message.Query().Where(message.ConversationID(conv.ID)).CountX(as(alice))
		_, err = e.eng.Retry(as(alice), chat.RetryInput{AttemptID: done.attempt.ID, ClientRequestID: uuid.NewString()})
		assert.Equal(t, domain.CodeUnavailable, code(err), "retry: %v", err)
		_, err = e.eng.Ask(as(alice), chat.AskInput{EditOf: &done.attempt.UserMessageID, ClientMessageID: uuid.NewString(), Question: "another question"})
		assert.Equal(t, domain.CodeUnavailable, code(err), "edit: %v", err)
		_, err = e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ParentID: nil, ClientMessageID: uuid.NewString(), Question: "a third question"})
		assert.Equal(t, domain.CodeUnavailable, code(err), "ask on a branch: %v", err)
		assert.Equal(t, before, e.db.Client.Message.Query().Where(message.ConversationID(conv.ID)).CountX(as(alice)))
		assert.Equal(t, 1, e.db.Client.Attempt.Query().Where(attempt.ConversationID(conv.ID)).CountX(as(alice)), "nothing written")

		e.model.release()
		e.wait(t, alice, held.Attempt.ID, 0)
		eventually(t, "the slot is released", func() bool { return chat.AdmissionStats(e.eng).Running == 0 })
		_, err = e.eng.Retry(as(alice), chat.RetryInput{AttemptID: done.attempt.ID, ClientRequestID: uuid.NewString()})
		require.NoError(t, err, "the slot is free again")
	}, func(c *chat.Config, _ *domain.TenantSettings) {
		c.Admission = admission.Config{Limit: 1, Queue: 0}
	})
}
