package broker_test

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/broker"
)

// fakeClock is a manually advanced clock for MemoryOptions.Now.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newBroker returns a broker without janitor that is closed when the test
// ends.
func newBroker(t testing.TB, opts broker.MemoryOptions) *broker.Memory {
	t.Helper()
	if opts.JanitorInterval == 0 {
		opts.JanitorInterval = -1
	}
	b := broker.NewMemory(opts)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func publish(t testing.TB, b broker.Broker, topic, kind string, seq int) broker.Event {
	t.Helper()
	ev, err := b.Publish(context.Background(), broker.Event{Topic: topic, Kind: kind, Seq: seq})
	require.NoError(t, err)
	return ev
}

func subscribe(t testing.TB, b broker.Broker, topic string) *broker.Subscription {
	t.Helper()
	s, err := b.Subscribe(context.Background(), topic)
	require.NoError(t, err)
	return s
}

// drain returns what is left on a subscription's channel after it ended.
func drain(t testing.TB, s *broker.Subscription) []broker.Event {
	t.Helper()
	requireDone(t, s)
	var out []broker.Event
	for ev := range s.C() {
		out = append(out, ev)
	}
	return out
}

// requireDone fails unless s ends within a generous deadline.
func requireDone(t testing.TB, s *broker.Subscription) {
	t.Helper()
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("subscription did not end")
	}
}

func requireLive(t testing.TB, s *broker.Subscription) {
	t.Helper()
	select {
	case <-s.Done():
		t.Fatalf("subscription ended: %v", s.Err())
	default:
	}
	require.NoError(t, s.Err())
}

// waitGoroutines polls until the goroutine count is back to at most want,
// failing after a deadline.
func waitGoroutines(t testing.TB, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= want {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("goroutines: %d, want <= %d\n%s", n, want, buf)
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}

func offsets(evs []broker.Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Offset
	}
	return out
}

func runtimeGoroutines() int { return runtime.NumGoroutine() }
