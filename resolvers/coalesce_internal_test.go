package resolvers

import (
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/chat"
)

// replay drives a coalescer with a model that emits n chunks of chunk
// bytes, one every pace, on a virtual clock, the way streamAttempt drives
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
