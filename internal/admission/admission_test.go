package admission_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/admission"
	"github.com/ragchat/ragchat/internal/domain"
)

// eventually polls cond until it holds or a generous deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestGateBoundsAndQueuesInOrder: with bound B and a queue of B, 3B
// acquirers hold at most B slots at once (counted), B wait and are served
// first in first out, and B are refused with UNAVAILABLE and a retry hint;
// afterwards the gate and the goroutines are back where they started.
func TestGateBoundsAndQueuesInOrder(t *testing.T) {
	const bound = 3
	baseline := runtime.NumGoroutine()
	g := admission.New(admission.Config{Limit: bound, Queue: bound, MaxWait: time.Minute})
	ctx := context.Background()

	var held []*admission.Slot
	for range bound {
		s, err := g.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, s)
	}
	got := make([]chan *admission.Slot, bound)
	for i := range bound {
		got[i] = make(chan *admission.Slot, 1)
		go func() {
			s, err := g.Acquire(ctx)
			if err != nil {
				t.Error(err)
			}
			got[i] <- s
		}()
		// Queued one after the other, so that the order is known.
		eventually(t, "the waiter queues", func() bool { return g.Stats().Queued == i+1 })
	}
	for range bound {
		_, err := g.Acquire(ctx)
		if domain.ErrorCode(err) != domain.CodeUnavailable {
			t.Fatalf("a full queue: got %v, want UNAVAILABLE", err)
		}
		if secs, _ := domain.ErrorDetails(err)["retryAfterSeconds"].(int); secs < 1 {
			t.Fatalf("retryAfterSeconds = %v, want >= 1", domain.ErrorDetails(err)["retryAfterSeconds"])
		}
	}
	if got := g.Stats(); got != (admission.Stats{Running: bound, Queued: bound}) {
		t.Fatalf("stats %+v", got)
	}
	// Each release hands its slot to the oldest waiter, and only to it.
	var served []*admission.Slot
	for i, s := range held {
		s.Release()
		s.Release() // a second release does nothing
		w := <-got[i]
		if r := g.Stats(); r != (admission.Stats{Running: bound, Queued: bound - 1 - i}) {
			t.Fatalf("after release %d: stats %+v", i, r)
		}
		for j := i + 1; j < bound; j++ {
			if len(got[j]) != 0 {
				t.Fatalf("waiter %d served before waiter %d", j, i+1)
			}
		}
		served = append(served, w)
	}
	for _, s := range served {
		s.Release()
	}
	if got := g.Stats(); got != (admission.Stats{}) {
		t.Fatalf("stats after %+v", got)
	}
	eventually(t, "the goroutines return", func() bool { return runtime.NumGoroutine() <= baseline })
}

// TestGateCancelledWaiterLeaves: a waiter whose context ends leaves the
// queue with the context's cause and holds nothing; its place is free for
// the next, and a released slot goes to the next waiter.
func TestGateCancelledWaiterLeaves(t *testing.T) {
	g := admission.New(admission.Config{Limit: 1, Queue: 1, MaxWait: time.Minute})
	s, err := g.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	gone := errors.New("client went away")
	errc := make(chan error, 1)
	go func() {
		_, err := g.Acquire(ctx)
		errc <- err
	}()
	eventually(t, "the waiter queues", func() bool { return g.Stats().Queued == 1 })
	cancel(gone)
	if err := <-errc; !errors.Is(err, gone) {
		t.Fatalf("got %v, want the context's cause", err)
	}
	if got := g.Stats(); got != (admission.Stats{Running: 1}) {
		t.Fatalf("stats %+v", got)
	}
	next := make(chan *admission.Slot, 1)
	go func() {
		n, err := g.Acquire(context.Background())
		if err != nil {
			t.Error(err)
		}
		next <- n
	}()
	eventually(t, "the next waiter queues", func() bool { return g.Stats().Queued == 1 })
	s.Release()
	n := <-next
	if got := g.Stats(); got != (admission.Stats{Running: 1}) {
		t.Fatalf("stats after hand-over %+v", got)
	}
	n.Release()
	if got := g.Stats(); got != (admission.Stats{}) {
		t.Fatalf("stats after release %+v", got)
	}
}

// TestGateWaitRunsOut: an ask still queued after MaxWait is refused with
// UNAVAILABLE and leaves the queue.
func TestGateWaitRunsOut(t *testing.T) {
	g := admission.New(admission.Config{Limit: 1, Queue: 1, MaxWait: time.Millisecond})
	s, _ := g.Acquire(context.Background())
	defer s.Release()
	_, err := g.Acquire(context.Background())
	if domain.ErrorCode(err) != domain.CodeUnavailable {
		t.Fatalf("got %v, want UNAVAILABLE", err)
	}
	if got := g.Stats(); got != (admission.Stats{Running: 1}) {
		t.Fatalf("stats %+v", got)
	}
}

// TestGateOff: a gate without a bound, and a nil gate, admit everything
// and count nothing.
func TestGateOff(t *testing.T) {
	for _, g := range []*admission.Gate{nil, admission.New(admission.Config{})} {
		for range 100 {
			s, err := g.Acquire(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Release()
		}
		if got := g.Stats(); got != (admission.Stats{}) {
			t.Fatalf("stats %+v", got)
		}
	}
}
