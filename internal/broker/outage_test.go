package broker_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/broker"
)

// follow reads topic on b until an event of kind arrives, resubscribing
// after ErrLagged as the engine does (resuming from the backlog when it
// can, else taking the backlog as it is). It returns every event seen, in
// order, without duplicates when resumed.
func follow(t *testing.T, b broker.Broker, topic, kind string) (evs []broker.Event, lags int) {
	t.Helper()
	s := subscribe(t, b, topic)
	defer func() { s.Close() }()
	last := int64(0)
	take := func(ev broker.Event) bool {
		evs = append(evs, ev)
		last = ev.Offset
		return ev.Kind == kind
	}
	backlog, _ := s.Backlog()
	for _, ev := range backlog {
		if take(ev) {
			return evs, lags
		}
	}
	for {
		select {
		case ev, ok := <-s.C():
			if ok {
				if take(ev) {
					return evs, lags
				}
				continue
			}
			require.ErrorIs(t, s.Err(), broker.ErrLagged, "only a lag ends the subscription")
			lags++
			s = subscribe(t, b, topic)
			missed, ok := s.Since(last)
			if !ok {
				missed, _ = s.Backlog()
			}
			for _, ev := range missed {
				if take(ev) {
					return evs, lags
				}
			}
		case <-timeAfterGuard():
			t.Fatalf("%s: no %s", topic, kind)
		}
	}
}

// TestSlowSubscriberNeverSlowsTheStream: a subscriber on B that never reads
// is dropped with ErrLagged; A's publishes all return, B relays every
// event, and a reader on B that keeps up gets them all in order.
func TestSlowSubscriberNeverSlowsTheStream(t *testing.T) {
	forEachBus(t, false, func(t *testing.T, bus *testBus) {
		a := bus.connect(t, broker.Options{Instance: "a"})
		b := bus.connect(t, broker.Options{Instance: "b", Memory: broker.MemoryOptions{SubscriberBuffer: 64}})
		const topic, events = "conversation:slow", 1000
		slowA, slowB := subscribe(t, a, topic), subscribe(t, b, topic)

		published := make(chan error, 1)
		go func() {
			for i := range events {
				if _, err := a.Publish(context.Background(), broker.Event{Topic: topic, Kind: "MESSAGE", Seq: i}); err != nil {
					published <- err
					return
				}
			}
			_, err := a.Publish(context.Background(), broker.Event{Topic: topic, Kind: "END", Seq: events})
			published <- err
		}()
		evs, _ := follow(t, b, topic, "END")
		select {
		case err := <-published:
			require.NoError(t, err)
		case <-timeAfterGuard():
			t.Fatal("the publisher blocked")
		}
		require.Len(t, evs, events+1)
		for i, ev := range evs {
			assert.Equal(t, i, ev.Seq)
		}
		for _, s := range []*broker.Subscription{slowA, slowB} {
			requireDone(t, s)
			assert.ErrorIs(t, s.Err(), broker.ErrLagged)
		}
		assert.Equal(t, uint64(events+1), b.Stats().Received)
	})
}

// TestPublishNeverBlocksWhileBusIsDown stops the bus, publishes far more
// than the queue holds, and checks that every Publish returns, that only
// DELTAs are dropped (and counted), and that once the bus is back every
// terminal event and retirement reaches the other instance, whose
// subscribers learn of the dropped DELTAs (ErrLagged / an incomplete
// backlog) instead of waiting for them.
func TestPublishNeverBlocksWhileBusIsDown(t *testing.T) {
	forEachBus(t, true, func(t *testing.T, bus *testBus) {
		const queue, topics, deltas = 64, 20, 100
		a := bus.connect(t, broker.Options{Instance: "a", QueueSize: queue})
		b := bus.connect(t, broker.Options{Instance: "b"})

		bus.stop()
		publishEv(t, a, broker.Event{Topic: "attempt:probe", Kind: "STARTED"})
		eventually(t, func() bool { return a.Stats().SendErrors > 0 }, "A's sender fails and retries")
		// Keep A's batches until B listens again, so that none is sent
		// into the void while B reconnects.
		release := broker.HoldSender(a)
		published := make(chan struct{})
		go func() {
			defer close(published)
			for i := range topics {
				topic := fmt.Sprint("attempt:", i)
				ds := make([]string, deltas)
				for j := range ds {
					ds[j] = fmt.Sprint(j, " ")
				}
				publishAnswer(t, a, topic, ds)
				a.Retire(topic)
			}
		}()
		select {
		case <-published:
		case <-timeAfterGuard():
			t.Fatal("Publish blocked while the bus was down")
		}
		st := a.Stats()
		assert.Positive(t, st.Dropped, "DELTAs were dropped")
		assert.Zero(t, st.DroppedPriority, "terminal events and retirements are kept")
		assert.LessOrEqual(t, st.Queued, 2*queue)
		assert.GreaterOrEqual(t, st.Queued, 3*topics, "every STARTED, COMPLETED and retirement waits")

		bus.start()
		eventually(t, func() bool { return b.Stats().Resets >= 1 }, "B's listener reconnects")
		eventually(t, func() bool { return broker.SyncListener(b) == nil }, "the bus has B's subscription again")
		release()

		var mu sync.Mutex
		lagged := 0
		var wg sync.WaitGroup
		for i := range topics {
			wg.Add(1)
			go func() {
				defer wg.Done()
				evs, lags := follow(t, b, fmt.Sprint("attempt:", i), "COMPLETED")
				assert.Equal(t, "COMPLETED", evs[len(evs)-1].Kind)
				mu.Lock()
				lagged += lags
				mu.Unlock()
			}()
		}
		wg.Wait()
		eventually(t, func() bool { return b.Stats().Retired == topics }, "every retirement reaches B")
		assert.Positive(t, b.Stats().Gaps, "B noticed the dropped DELTAs")
		assert.Zero(t, a.Stats().Queued)
		assert.Positive(t, a.Stats().SendErrors)
	})
}

// TestBusRestart stops and restarts the bus while subscribers are
// attached. Subscriptions to topics fed by another instance end with
// ErrLagged once the listener is back (so the engine resyncs from the
// database), topics only published here stay live, events published after
// the restart flow again both ways, and after Close no goroutine and no
// connection is left.
func TestBusRestart(t *testing.T) {
	forEachBus(t, true, func(t *testing.T, bus *testBus) {
		baseline := runtimeGoroutines()
		conns := bus.conns()
		a := bus.connect(t, broker.Options{Instance: "a"})
		b := bus.connect(t, broker.Options{Instance: "b"})
		const remote, local = "attempt:remote", "attempt:local"

		remoteSub := subscribe(t, b, remote)
		publishEv(t, a, broker.Event{Topic: remote, Kind: "STARTED"})
		seq := publishDeltas(t, a, remote, 0, []string{"before"})
		text, _ := textOf(t, until(t, remoteSub, broker.KindDelta))
		require.Equal(t, "before", text)
		publishEv(t, b, broker.Event{Topic: local, Kind: "STARTED"})
		localSub := subscribe(t, b, local)

		bus.stop()
		bus.start()
		requireDone(t, remoteSub)
		assert.ErrorIs(t, remoteSub.Err(), broker.ErrLagged, "the engine must resync from the database")
		for _, x := range []*broker.Distributed{a, b} {
			eventually(t, func() bool { return x.Stats().Resets >= 1 }, "%s reconnects", x.Origin())
			eventually(t, func() bool { return broker.SyncListener(x) == nil }, "the bus has %s's subscription again", x.Origin())
		}
		requireLive(t, localSub)

		again := subscribe(t, b, remote)
		_, complete := again.Backlog()
		assert.False(t, complete, "B may have missed events while it was disconnected")
		seq = publishDeltas(t, a, remote, seq, []string{" after"})
		publishEv(t, a, broker.Event{Topic: remote, Kind: "COMPLETED", Seq: seq})
		evs := until(t, again, "COMPLETED")
		text, _ = textFrom(t, evs, len("before"))
		assert.Equal(t, " after", text)

		onA := subscribe(t, a, local)
		publishEv(t, b, broker.Event{Topic: local, Kind: "COMPLETED"})
		until(t, onA, "COMPLETED") // B's events reach A again
		assert.Equal(t, "COMPLETED", next(t, localSub).Kind)

		require.NoError(t, a.Close())
		require.NoError(t, b.Close())
		eventually(t, func() bool { return bus.conns() <= conns }, "connections return to baseline")
		waitGoroutines(t, baseline)
	})
}
