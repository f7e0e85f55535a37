package broker_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/broker"
)

func TestPublishAssignsOffsetsPerTopicInOrder(t *testing.T) {
	b := newBroker(t, broker.MemoryOptions{})
	sa := subscribe(t, b, "attempt:a")
	sb := subscribe(t, b, "attempt:b")

	for i := 1; i <= 5; i++ {
		ea := publish(t, b, "attempt:a", "DELTA", i*10)
		assert.Equal(t, int64(i), ea.Offset)
		if i <= 2 {
			eb := publish(t, b, "attempt:b", "DELTA", i)
			assert.Equal(t, int64(i), eb.Offset)
		}
	}
	sa.Close()
	sb.Close()
	gotA, gotB := drain(t, sa), drain(t, sb)
	assert.Equal(t, []int64{1, 2, 3, 4, 5}, offsets(gotA))
	assert.Equal(t, []int64{1, 2}, offsets(gotB))
	for i, ev := range gotA {
		assert.Equal(t, broker.Event{Topic: "attempt:a", Offset: int64(i + 1), Kind: "DELTA", Seq: (i + 1) * 10}, ev)
	}
}

func TestPublishCopiesData(t *testing.T) {
	b := newBroker(t, broker.MemoryOptions{})
	data := []byte(`{"text":"hi"}`)
	ev, err := b.Publish(context.Background(), broker.Event{Topic: "t", Kind: "DELTA", Data: data})
	require.NoError(t, err)
	data[2] = 'X'
	assert.JSONEq(t, `{"text":"hi"}`, string(ev.Data))
	backlog, _ := subscribe(t, b, "t").Backlog()
	assert.JSONEq(t, `{"text":"hi"}`, string(backlog[0].Data))
}

func TestPublishAndSubscribeRejectBadInput(t *testing.T) {
	b := newBroker(t, broker.MemoryOptions{})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		do   func() error
		want error
	}{
		{"publish without topic", func() error {
			_, err := b.Publish(context.Background(), broker.Event{Kind: "X"})
			return err
		}, broker.ErrNoTopic},
		{"subscribe without topic", func() error {
			_, err := b.Subscribe(context.Background(), "")
			return err
		}, broker.ErrNoTopic},
		{"publish with done context", func() error {
			_, err := b.Publish(cancelled, broker.Event{Topic: "t"})
			return err
		}, context.Canceled},
		{"subscribe with done context", func() error {
			_, err := b.Subscribe(cancelled, "t")
			return err
		}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.ErrorIs(t, tt.do(), tt.want)
		})
	}
	assert.Zero(t, b.Stats().Topics)
}

// TestBacklogPlusLiveHasNoGapOrDuplicate subscribes while several
// publishers write to one topic, and checks that every subscriber's backlog
// followed by its live events is exactly the offsets it should see, in
// publish order.
func TestBacklogPlusLiveHasNoGapOrDuplicate(t *testing.T) {
	const publishers, perPublisher, subscribers = 4, 300, 16
	const total = publishers * perPublisher
	tests := []struct {
		name    string
		backlog int
	}{
		{"backlog holds everything", total},
		{"backlog evicts", 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBroker(t, broker.MemoryOptions{BacklogSize: tt.backlog, SubscriberBuffer: total})
			ctx := context.Background()
			var wg sync.WaitGroup
			start := make(chan struct{})
			for p := range publishers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					for i := range perPublisher {
						_, err := b.Publish(ctx, broker.Event{Topic: "t", Kind: fmt.Sprint(p), Seq: i})
						assert.NoError(t, err)
					}
				}()
			}
			subs := make([]*broker.Subscription, subscribers)
			for i := range subscribers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					s, err := b.Subscribe(ctx, "t")
					if assert.NoError(t, err) {
						subs[i] = s
					}
				}()
			}
			close(start)
			wg.Wait()

			for _, s := range subs {
				require.NotNil(t, s)
				backlog, complete := s.Backlog()
				// Every event up to total is published by now; read the
				// live ones that followed the snapshot.
				var live []broker.Event
				next := int64(1)
				if len(backlog) > 0 {
					next = backlog[len(backlog)-1].Offset + 1
				}
				for ; next <= total; next++ {
					live = append(live, <-s.C())
				}
				requireLive(t, s)
				all := append(append([]broker.Event(nil), backlog...), live...)
				require.NotEmpty(t, all)
				first := all[0].Offset
				assert.Equal(t, first == 1, complete)
				for i, ev := range all {
					require.Equal(t, first+int64(i), ev.Offset, "gap or duplicate at %d", i)
				}
				assert.Equal(t, int64(total), all[len(all)-1].Offset)
				assert.LessOrEqual(t, len(backlog), tt.backlog)
				// Each publisher's events keep their publish order.
				lastSeq := map[string]int{}
				for _, ev := range all {
					if prev, ok := lastSeq[ev.Kind]; ok {
						assert.Greater(t, ev.Seq, prev)
					}
					lastSeq[ev.Kind] = ev.Seq
				}
				s.Close()
			}
		})
	}
}

// TestSlowSubscriberNeverBlocksPublisher publishes in lock step with a fast
// reader while a second subscriber never reads: publishing keeps going, the
// slow one is dropped with ErrLagged, and the fast one gets everything.
func TestSlowSubscriberNeverBlocksPublisher(t *testing.T) {
	const buffer, events = 8, 100
	b := newBroker(t, broker.MemoryOptions{SubscriberBuffer: buffer})
	slow := subscribe(t, b, "t")
	fast := subscribe(t, b, "t")

	received := make(chan broker.Event)
	go func() {
		defer close(received)
		for ev := range fast.C() {
			received <- ev
		}
	}()
	published := make(chan error, 1)
	var got []broker.Event
	go func() {
		for i := range events {
			if _, err := b.Publish(context.Background(), broker.Event{Topic: "t", Kind: "DELTA", Seq: i}); err != nil {
				published <- err
				return
			}
			got = append(got, <-received)
		}
		published <- nil
	}()
	select {
	case err := <-published:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("publisher blocked")
	}

	requireDone(t, slow)
	assert.ErrorIs(t, slow.Err(), broker.ErrLagged)
	assert.Equal(t, []int64{1, 2, 3, 4, 5, 6, 7, 8}, offsets(drain(t, slow)), "the slow reader keeps what was buffered")

	requireLive(t, fast)
	require.Len(t, got, events)
	for i, ev := range got {
		assert.Equal(t, int64(i+1), ev.Offset)
	}
	fast.Close()
	_, open := <-received
	assert.False(t, open)
	assert.Equal(t, 0, b.Stats().Subscribers)
}

func TestContextCancelEndsSubscription(t *testing.T) {
	tests := []struct {
		name      string
		ctx       func() (context.Context, context.CancelFunc)
		cancelNow bool
		want      error
	}{
		{"cancel", func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, true, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			// Its deadline passes when the test says so, after Subscribe:
			// a real 1 ms timeout could pass before Subscribe on a busy
			// machine, which then refuses the expired context instead.
			return newExpiringContext()
		}, true, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBroker(t, broker.MemoryOptions{})
			publish(t, b, "t", "STARTED", 0)
			ctx, cancel := tt.ctx()
			defer cancel()
			s, err := b.Subscribe(ctx, "t")
			require.NoError(t, err)
			if tt.cancelNow {
				cancel()
			}
			requireDone(t, s)
			assert.ErrorIs(t, s.Err(), tt.want)
			assert.Empty(t, drain(t, s))
			assert.Equal(t, broker.Stats{Topics: 1}, b.Stats())
			// The topic still works for others.
			assert.Equal(t, int64(2), publish(t, b, "t", "DELTA", 1).Offset)
		})
	}
}

func TestSubscriptionCloseIsIdempotentAndDropsUnusedTopic(t *testing.T) {
	b := newBroker(t, broker.MemoryOptions{})
	s := subscribe(t, b, "nobody-publishes")
	backlog, complete := s.Backlog()
	assert.Empty(t, backlog)
	assert.True(t, complete)
	assert.Equal(t, broker.Stats{Topics: 1, Subscribers: 1}, b.Stats())

	s.Close()
	s.Close()
	requireDone(t, s)
	assert.ErrorIs(t, s.Err(), broker.ErrClosed)
	assert.Equal(t, broker.Stats{}, b.Stats(), "a topic that never published is dropped with its last subscriber")
}

func TestBacklogEvictionAndSince(t *testing.T) {
	b := newBroker(t, broker.MemoryOptions{BacklogSize: 3})
	for i := range 5 {
		publish(t, b, "t", "DELTA", i)
	}
	s := subscribe(t, b, "t")
	backlog, complete := s.Backlog()
	assert.Equal(t, []int64{3, 4, 5}, offsets(backlog))
	assert.False(t, complete)

	tests := []struct {
		from int64
		want []int64
		ok   bool
	}{
		{from: 0, ok: false},
		{from: 1, ok: false},
		{from: 2, want: []int64{3, 4, 5}, ok: true},
		{from: 4, want: []int64{5}, ok: true},
		{from: 5, want: []int64{}, ok: true},
		{from: 6, ok: false}, // beyond the topic: it restarted
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.from), func(t *testing.T) {
			evs, ok := s.Since(tt.from)
			assert.Equal(t, tt.ok, ok)
			if tt.ok {
				assert.Equal(t, tt.want, offsets(evs))
			}
		})
	}

	fresh := subscribe(t, b, "fresh")
	evs, ok := fresh.Since(0)
	assert.True(t, ok)
	assert.Empty(t, evs)
}

func TestRetireKeepsBacklogForGracePeriodThenForgets(t *testing.T) {
	tests := []struct {
		name   string
		expire func(t *testing.T, b *broker.Memory)
	}{
		{"sweep", func(t *testing.T, b *broker.Memory) { assert.Equal(t, 1, b.Sweep()) }},
		{"lazily on subscribe", func(t *testing.T, b *broker.Memory) {
			subscribe(t, b, "attempt:1").Close()
		}},
		{"lazily on publish", func(t *testing.T, b *broker.Memory) {
			assert.Equal(t, int64(1), publish(t, b, "attempt:1", "STARTED", 0).Offset)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			b := newBroker(t, broker.MemoryOptions{RetireAfter: 2 * time.Minute, Now: clock.Now})
			for i := range 3 {
				publish(t, b, "attempt:1", "DELTA", i)
			}
			early := subscribe(t, b, "attempt:1")
			b.Retire("attempt:1")
			b.Retire("attempt:1") // idempotent: keeps the first deadline
			b.Retire("attempt:unknown")
			assert.Equal(t, broker.Stats{Topics: 1, Retired: 1, Subscribers: 1}, b.Stats())

			clock.Advance(2*time.Minute - time.Second)
			assert.Zero(t, b.Sweep())
			late := subscribe(t, b, "attempt:1")
			backlog, complete := late.Backlog()
			assert.Equal(t, []int64{1, 2, 3}, offsets(backlog), "a late resumer is served from the backlog")
			assert.True(t, complete)
			requireLive(t, early)

			clock.Advance(time.Second)
			tt.expire(t, b)
			for _, s := range []*broker.Subscription{early, late} {
				requireDone(t, s)
				assert.ErrorIs(t, s.Err(), broker.ErrExpired)
			}
			again := subscribe(t, b, "attempt:1")
			backlog, _ = again.Backlog()
			assert.LessOrEqual(t, len(backlog), 1, "the old backlog is forgotten")
		})
	}
}

func TestPublishRevivesRetiredTopic(t *testing.T) {
	clock := newFakeClock()
	b := newBroker(t, broker.MemoryOptions{RetireAfter: time.Minute, Now: clock.Now})
	publish(t, b, "conversation:1", "MESSAGE", 0)
	b.Retire("conversation:1")
	clock.Advance(30 * time.Second)
	publish(t, b, "conversation:1", "MESSAGE", 1)
	clock.Advance(time.Minute) // past the retirement deadline
	assert.Zero(t, b.Sweep())
	assert.Equal(t, broker.Stats{Topics: 1}, b.Stats(), "no longer retired")
	assert.Equal(t, int64(3), publish(t, b, "conversation:1", "MESSAGE", 2).Offset)
}

func TestIdleTopicIsForgotten(t *testing.T) {
	clock := newFakeClock()
	b := newBroker(t, broker.MemoryOptions{IdleAfter: 10 * time.Minute, Now: clock.Now})
	publish(t, b, "idle", "MESSAGE", 0)
	publish(t, b, "watched", "MESSAGE", 0)
	s := subscribe(t, b, "watched")

	clock.Advance(10 * time.Minute)
	assert.Equal(t, 1, b.Sweep())
	assert.Equal(t, broker.Stats{Topics: 1, Subscribers: 1}, b.Stats(), "a topic with a subscriber is never idle")
	requireLive(t, s)

	s.Close()
	clock.Advance(10 * time.Minute)
	assert.Equal(t, 1, b.Sweep())
	assert.Equal(t, broker.Stats{}, b.Stats())
}

func TestJanitorForgetsExpiredTopics(t *testing.T) {
	clock := newFakeClock()
	b := newBroker(t, broker.MemoryOptions{JanitorInterval: time.Millisecond, Now: clock.Now})
	publish(t, b, "t", "COMPLETED", 0)
	s := subscribe(t, b, "t")
	b.Retire("t")
	clock.Advance(broker.DefaultRetireAfter)
	requireDone(t, s)
	assert.ErrorIs(t, s.Err(), broker.ErrExpired)
	assert.Equal(t, broker.Stats{}, b.Stats())
}

func TestCloseEndsAllSubscriptions(t *testing.T) {
	before := runtimeGoroutines()
	b := broker.NewMemory(broker.MemoryOptions{})
	var subs []*broker.Subscription
	for i := range 10 {
		topic := fmt.Sprintf("attempt:%d", i%3)
		publish(t, b, topic, "STARTED", 0)
		subs = append(subs, subscribe(t, b, topic))
	}
	require.NoError(t, b.Close())
	for _, s := range subs {
		requireDone(t, s)
		assert.ErrorIs(t, s.Err(), broker.ErrClosed)
		drain(t, s)
	}
	_, err := b.Publish(context.Background(), broker.Event{Topic: "attempt:0"})
	assert.ErrorIs(t, err, broker.ErrClosed)
	_, err = b.Subscribe(context.Background(), "attempt:0")
	assert.ErrorIs(t, err, broker.ErrClosed)
	assert.NoError(t, b.Close())
	assert.Equal(t, broker.Stats{}, b.Stats())
	waitGoroutines(t, before)
}

// TestSubscribeCancelCyclesDoNotLeak subscribes and cancels 200 times and
// checks that the goroutine count returns to its baseline.
func TestSubscribeCancelCyclesDoNotLeak(t *testing.T) {
	b := newBroker(t, broker.MemoryOptions{})
	publish(t, b, "busy", "STARTED", 0)
	baseline := runtimeGoroutines()
	for i := range 200 {
		ctx, cancel := context.WithCancel(context.Background())
		topic := "busy"
		if i%2 == 1 {
			topic = fmt.Sprintf("empty:%d", i)
		}
		s, err := b.Subscribe(ctx, topic)
		require.NoError(t, err)
		if i%3 == 0 {
			s.Close() // closing first must release the context watch too
		}
		cancel()
		requireDone(t, s)
		if i%3 != 0 && !errors.Is(s.Err(), context.Canceled) {
			t.Fatalf("cycle %d: err %v", i, s.Err())
		}
	}
	waitGoroutines(t, baseline)
	// The last detach may still be dropping its unused topic.
	require.Eventually(t, func() bool { return b.Stats() == broker.Stats{Topics: 1} },
		10*time.Second, time.Millisecond, "unused topics are dropped")
}

// expiringContext is a context whose deadline passes when its cancel
// function is called: Err then reports context.DeadlineExceeded, as a
// context whose timer fired does.
type expiringContext struct {
	context.Context
	once sync.Once
	done chan struct{}
}

// newExpiringContext returns an expiringContext and the function that
// makes its deadline pass (idempotent).
func newExpiringContext() (context.Context, context.CancelFunc) {
	c := &expiringContext{Context: context.Background(), done: make(chan struct{})}
	return c, func() { c.once.Do(func() { close(c.done) }) }
}

func (c *expiringContext) Done() <-chan struct{} { return c.done }

func (c *expiringContext) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
