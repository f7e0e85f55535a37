package chat_test

import (
	"context"
	"log/slog"
	"net/http"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// instance is another engine on the same database, as a second server
// process would be: its own instance id, broker, clock and logger.
type instance struct {
	eng   *chat.Engine
	feed  *feed.Service
	clock *clock
	logs  *logCapture
}

// newInstance starts another engine on e's database and model. cfg's zero
// fields take the test defaults of newEnv.
func (e *env) newInstance(t *testing.T, cfg chat.Config) *instance {
	t.Helper()
	return e.newInstanceDeps(t, cfg, nil)
}

// newInstanceDeps is newInstance whose engine's adapters deps edits (nil:
// none), e.g. to share e's broker, as the instances of one deployment do.
func (e *env) newInstanceDeps(t *testing.T, cfg chat.Config, deps func(*chat.Deps)) *instance {
	t.Helper()
	if cfg.InstanceID == "" {
		cfg.InstanceID = "other-" + uuid.NewString()[:8]
	}
	if cfg.CheckpointInterval == 0 {
		cfg.CheckpointInterval = 20 * time.Millisecond
	}
	if cfg.LeaseDuration == 0 {
		cfg.LeaseDuration = 5 * time.Second
	}
	cfg.MinEvidenceScore = offline.SuggestedMinEvidenceScore
	b := broker.NewMemory(broker.MemoryOptions{})
	t.Cleanup(func() { _ = b.Close() })
	in := &instance{clock: &clock{}, logs: &logCapture{}}
	d := chat.Deps{
		DB: e.db, Model: e.model, Broker: b,
		Retriever: knowledge.NewRetriever(e.db, knowledge.RetrieverOptions{}),
		Now:       in.clock.now, Logger: slog.New(in.logs),
	}
	if deps != nil {
		deps(&d)
	}
	if d.Feed == nil {
		d.Feed = feed.New(feed.Deps{Client: d.DB.Client, Broker: d.Broker, Logger: d.Logger, Now: d.Now})
	}
	in.eng, in.feed = chat.New(cfg, d), d.Feed
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = in.eng.Shutdown(ctx)
	})
	return in
}

// logCapture is a slog handler that keeps the messages logged.
type logCapture struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logCapture) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCapture) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logCapture) WithGroup(string) slog.Handler            { return l }
func (l *logCapture) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	return nil
}

// count returns how many messages contain s.
func (l *logCapture) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if strings.Contains(m, s) {
			n++
		}
	}
	return n
}

// goroutines counts the goroutines once idle HTTP connections (to the fake
// model) are closed.
func goroutines() int {
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	return runtime.NumGoroutine()
}

// assertGoroutinesBack waits until the goroutine count is back to
// baseline, and shows the goroutines if it is not.
func assertGoroutinesBack(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for goroutines() > baseline {
		if time.Now().After(deadline) {
			var b strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
			t.Errorf("goroutines: baseline %d, now %d\n%s", baseline, runtime.NumGoroutine(), b.String())
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAttemptEndedElsewhereEndsLocalSubscribers: with two instances on one
// database, when instance 2 ends an attempt that instance 1 is generating
// (a cancel, or its reaper after a lost lease), instance 1's own
// subscribers end with that outcome (FAILED with its code) instead of
// waiting for ever, and instance 1's model call stops.
func TestAttemptEndedElsewhereEndsLocalSubscribers(t *testing.T) {
	cases := []struct {
		name string
		end  func(t *testing.T, other *instance, id uuid.UUID)
		want domain.FailureCode
	}{
		{"cancel", func(t *testing.T, other *instance, id uuid.UUID) {
			a, err := other.eng.Cancel(as(alice), id)
			require.NoError(t, err)
			require.Equal(t, attempt.StatusFAILED, a.Status)
		}, domain.FailureCancelled},
		{"leaseLost", func(t *testing.T, other *instance, id uuid.UUID) {
			// Instance 1's lease looks expired to instance 2 (its clock is
			// ahead), so instance 2's reaper takes the attempt.
			other.clock.advance(time.Hour)
			n, err := other.eng.ReapOnce(context.Background())
			require.NoError(t, err)
			require.Equal(t, 1, n)
		}, domain.FailureInterrupted},
	}
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e, fake := fakeEnv(t, db)
		fake.SetReply(strings.Repeat("根据资料，单个文件最大 20MB [C1]。", 60))
		fake.SetChunkRunes(2)
		fake.SetChunkDelay(20 * time.Millisecond)
		other := e.newInstance(t, chat.Config{})
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				baseline := goroutines()
				conv := e.conversation(t, alice)
				res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "k", Question: "上传文件最大是多少？"})
				require.NoError(t, err)
				ctx, cancel := context.WithTimeout(as(alice), 30*time.Second) // hang guard
				defer cancel()
				ch, err := e.eng.SubscribeAttempt(ctx, res.Attempt.ID, 0)
				require.NoError(t, err)
				for ev := range ch {
					if ev.Kind == chat.EventDelta {
						break // instance 1 is streaming
					}
				}
				tc.end(t, other, res.Attempt.ID)
				var last chat.AttemptEvent
				for ev := range ch {
					last = ev
				}
				require.NoError(t, ctx.Err(), "instance 1's subscriber never got a terminal event")
				assert.Equal(t, chat.EventFailed, last.Kind)
				assert.Equal(t, tc.want, last.FailureCode)
				require.NotNil(t, last.Attempt)
				assert.Equal(t, attempt.StatusFAILED, last.Attempt.Status)
				select {
				case <-fake.Disconnects():
				case <-ctx.Done():
					t.Fatal("instance 1 did not stop its model call")
				}
				// A new subscriber on instance 1 replays the same outcome.
				o := e.wait(t, alice, res.Attempt.ID, 0)
				assert.Equal(t, string(tc.want), *o.attempt.FailureCode)
				chat.WaitIdle(e.eng)
				assertGoroutinesBack(t, baseline)
			})
		}
	})
}
