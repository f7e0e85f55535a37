package server

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/chat"
)

// replay drives a coalescer with a model that emits n chunks of chunk
// bytes, one every pace, on a virtual clock, the way deliver drives
// it with the real one (the timer fires at due). It returns the DELTA
// events' texts and the longest time any text was held back.
func replay(p deltaPolicy, n int, chunk string, pace time.Duration) (texts []string, maxHeld time.Duration) {
	co := coalescer{p: p}
	t0 := time.Unix(0, 0)
	var arrivals []time.Time // arrival time of each byte not yet sent
	emit := func(text string, now time.Time) {
		texts = append(texts, text)
		for range len(text) {
			if held := now.Sub(arrivals[0]); held > maxHeld {
				maxHeld = held
			}
			arrivals = arrivals[1:]
		}
	}
	seq := 0
	for i := range n {
		now := t0.Add(time.Duration(i) * pace)
		if due := co.due(); !due.IsZero() && !due.After(now) {
			ev, _ := co.take(due)
			emit(ev.Text, due)
		}
		seq += len(chunk)
		for range len(chunk) {
			arrivals = append(arrivals, now)
		}
		if co.offer(chat.AttemptEvent{Kind: chat.EventDelta, Seq: seq, Text: chunk}, now) {
			emit(chunk, now)
		}
	}
	// COMPLETED comes a pace after the last chunk and flushes what is
	// pending, unless the timer did first.
	end := t0.Add(time.Duration(n) * pace)
	if due := co.due(); !due.IsZero() && due.Before(end) {
		end = due
	}
	if ev, ok := co.take(end); ok {
		emit(ev.Text, end)
	}
	return texts, maxHeld
}

// TestDeltaPolicyAdaptsToPace checks the adaptive window: at a chat
// model's pace (4 bytes every 15 ms, about 65 tokens/s) a 1,000-byte answer
// used to go out as about 100 DELTA events of 10 bytes under the fixed
// 40 ms window, each with about 100 bytes of framing (11× the answer on
// the wire); now every event after the first carries a budget's worth of
// text, no text waits longer than the budget, and a fast model still gets
// batches at the window's pace. Counted on a virtual clock.
func TestDeltaPolicyAdaptsToPace(t *testing.T) {
	p := deltaPolicy{window: DefaultDeltaWindow, budget: DefaultDeltaBudget, batch: DefaultDeltaBatch}
	cases := []struct {
		name      string
		n         int
		pace      time.Duration
		maxEvents int
		minText   int // bytes in every event but the first and the last
	}{
		{"chat pace, 1000 bytes", 250, 15 * time.Millisecond, 15, 64},
		{"chat pace, 4000 bytes", 1000, 15 * time.Millisecond, 55, 64},
		{"fast model, 4000 bytes", 1000, time.Millisecond, 40, DefaultDeltaBatch},
		{"slow model, 200 bytes", 50, 100 * time.Millisecond, 20, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			texts, held := replay(p, tc.n, "abcd", tc.pace)
			if got := strings.Join(texts, ""); len(got) != 4*tc.n {
				t.Fatalf("%d bytes came out, want %d", len(got), 4*tc.n)
			}
			if texts[0] != "abcd" {
				t.Fatalf("the first DELTA was held back: %q", texts[0])
			}
			if len(texts) > tc.maxEvents {
				t.Fatalf("%d DELTA events, want at most %d", len(texts), tc.maxEvents)
			}
			for i, text := range texts[1 : len(texts)-1] {
				if len(text) < tc.minText {
					t.Fatalf("DELTA %d carries %d bytes, want at least %d", i+1, len(text), tc.minText)
				}
			}
			if held > p.budget {
				t.Fatalf("text held back %s, over the %s budget", held, p.budget)
			}
		})
	}
}

// TestDeltaPolicyDue lists when a pending DELTA goes out.
func TestDeltaPolicyDue(t *testing.T) {
	p := deltaPolicy{window: 40 * time.Millisecond, budget: 300 * time.Millisecond, batch: 8}
	t0 := time.Unix(100, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	cases := []struct {
		name    string
		offers  []int  // arrival times (ms) of 4-byte deltas
		sentNow []bool // whether each went out at once
		due     int    // ms; -1: nothing pending
	}{
		{"the first goes out at once", []int{0}, []bool{true}, -1},
		{"a small pending delta waits for the budget", []int{0, 10}, []bool{true, false}, 310},
		{"a full batch goes out a window after the last event", []int{0, 10, 20}, []bool{true, false, false}, 40},
		{"after a quiet budget a delta goes out at once", []int{0, 400}, []bool{true, true}, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			co := coalescer{p: p}
			for i, ms := range tc.offers {
				if got := co.offer(chat.AttemptEvent{Kind: chat.EventDelta, Seq: 4 * (i + 1), Text: "abcd"}, at(ms)); got != tc.sentNow[i] {
					t.Fatalf("offer %d sent at once = %v, want %v", i, got, tc.sentNow[i])
				}
			}
			due := co.due()
			switch {
			case tc.due < 0 && !due.IsZero():
				t.Fatalf("due %s, want nothing pending", due.Sub(t0))
			case tc.due >= 0 && !due.Equal(at(tc.due)):
				t.Fatalf("due %s, want %dms", due.Sub(t0), tc.due)
			}
		})
	}
}

func delta(seq int, text string) chat.AttemptEvent {
	return chat.AttemptEvent{Kind: chat.EventDelta, Seq: seq, Text: text}
}

// sendTo is the send of a subscriber that reads out, as the resolvers'
// is: it gives up when ctx ends.
func sendTo(ctx context.Context, out chan<- chat.AttemptEvent) func(chat.AttemptEvent) bool {
	return func(ev chat.AttemptEvent) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
}

// runStream feeds events through deliver and returns what came out.
func runStream(t *testing.T, window time.Duration, events []chat.AttemptEvent) []chat.AttemptEvent {
	t.Helper()
	src := make(chan chat.AttemptEvent)
	out := make(chan chat.AttemptEvent, 100)
	done := make(chan struct{})
	ctx := context.Background()
	go func() {
		defer close(done)
		deltaPolicy{window: window, budget: window, batch: DefaultDeltaBatch}.deliver(ctx, src, sendTo(ctx, out))
	}()
	for _, ev := range events {
		src <- ev
	}
	close(src)
	<-done
	close(out)
	var got []chat.AttemptEvent
	for m := range out {
		got = append(got, m)
	}
	return got
}

func TestStreamAttemptCoalescesDeltas(t *testing.T) {
	events := []chat.AttemptEvent{
		{Kind: chat.EventStarted, StandaloneQuestion: "q"},
		delta(1, "a"), delta(3, "bc"), delta(4, "d"), delta(6, "ef"),
		{Kind: chat.EventCompleted, Seq: 6},
	}
	cases := []struct {
		name   string
		window time.Duration
		kinds  string
	}{
		{"off: every delta", 0, "STARTED DELTA DELTA DELTA DELTA COMPLETED"},
		{"a long window: the first at once, the rest merged before COMPLETED", time.Hour, "STARTED DELTA DELTA COMPLETED"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := runStream(t, tc.window, events)
			var kinds []string
			var text strings.Builder
			seq := 0
			for _, m := range got {
				kinds = append(kinds, string(m.Kind))
				if m.Kind == chat.EventDelta {
					seq += len([]rune(m.Text))
					if m.Seq != seq {
						t.Fatalf("DELTA seq %d after %q, want %d", m.Seq, text.String(), seq)
					}
					text.WriteString(m.Text)
				}
			}
			if strings.Join(kinds, " ") != tc.kinds {
				t.Fatalf("events %v, want %s", kinds, tc.kinds)
			}
			if text.String() != "abcdef" {
				t.Fatalf("text %q", text.String())
			}
		})
	}
}

// TestStreamAttemptTimerFlush merges deltas for a short window and flushes
// them when it ends, without waiting for another event.
func TestStreamAttemptTimerFlush(t *testing.T) {
	src := make(chan chat.AttemptEvent)
	out := make(chan chat.AttemptEvent, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		deltaPolicy{window: 20 * time.Millisecond, budget: 20 * time.Millisecond, batch: DefaultDeltaBatch}.deliver(ctx, src, sendTo(ctx, out))
	}()
	src <- delta(1, "a")
	src <- delta(2, "b")
	src <- delta(3, "c")
	first := <-out
	merged := <-out // arrives when the window ends, with no further input
	if first.Text != "a" || merged.Text != "bc" || merged.Seq != 3 {
		t.Fatalf("got %q then %q (seq %d)", first.Text, merged.Text, merged.Seq)
	}
	cancel()
	close(src) // the engine closes its channel once ctx ends
	<-done
}

// TestStreamAttemptDrainsOnCancel: once its subscriber's context ends,
// deliver stops sending (at most one send learns that the subscriber is
// gone) and keeps receiving from the engine's
// channel until the engine closes it, so the engine's sender is never
// left blocked, whatever the policy; then it returns. Every step has a
// deadline, so a regression fails instead of hanging the run.
func TestStreamAttemptDrainsOnCancel(t *testing.T) {
	const bound = 10 * time.Second // a failure bound, not a speed assertion
	cases := []struct {
		name   string
		policy deltaPolicy
	}{
		{"every delta", deltaPolicy{}},
		{"coalesced", newDeltaPolicy(time.Hour, time.Hour)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			baseline := runtime.NumGoroutine()
			src := make(chan chat.AttemptEvent)
			ctx, cancel := context.WithCancel(context.Background())
			var sends atomic.Int32
			done := make(chan struct{})
			go func() {
				defer close(done)
				tc.policy.deliver(ctx, src, func(chat.AttemptEvent) bool {
					sends.Add(1)
					return ctx.Err() == nil // false: the subscriber is gone
				})
			}()
			cancel()
			for i := range 5 { // the engine keeps sending until it sees ctx done
				select {
				case src <- delta(i+1, "x"):
				case <-time.After(bound):
					t.Fatalf("the engine's send %d was not received after the cancellation", i+1)
				}
			}
			select {
			case <-done:
				t.Fatal("deliver returned before the engine closed its channel")
			default:
			}
			close(src)
			select {
			case <-done:
			case <-time.After(bound):
				t.Fatal("deliver did not return after the engine closed its channel")
			}
			if n := sends.Load(); n > 1 {
				t.Fatalf("%d sends after the cancellation; the first one's false must end them", n)
			}
			deadline := time.Now().Add(bound)
			for runtime.NumGoroutine() > baseline && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond) // polls the condition; the deadline only bounds a failure
			}
			if n := runtime.NumGoroutine(); n > baseline {
				t.Fatalf("%d goroutines, %d before", n, baseline)
			}
		})
	}
}
