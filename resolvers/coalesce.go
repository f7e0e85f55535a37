package resolvers

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/chat"
)

// DefaultDeltaWindow is the default coalescing window of answer deltas.
const DefaultDeltaWindow = 40 * time.Millisecond

// streamAttempt forwards an attempt's events from src to out until src
// closes or ctx ends, coalescing DELTAs: a DELTA goes out at once when no
// DELTA went out during the last window; the DELTAs that follow within the
// window are merged (texts concatenated, the seq of the last) and sent when
// it ends, or before any other event. The first token is therefore never
// delayed, later text at most by window, and a fast model or a replay of a
// finished answer sends a few messages instead of one per token. Merging
// keeps the protocol's meaning: seq is still the answer's length after the
// delta, so resuming with afterSeq works unchanged. A window of 0 forwards
// every event as it comes.
func streamAttempt(ctx context.Context, src <-chan chat.AttemptEvent, out chan<- *model.AttemptEvent, window time.Duration) {
	var (
		pending  *chat.AttemptEvent
		timer    *time.Timer
		timerC   <-chan time.Time
		lastSent time.Time
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	send := func(ev chat.AttemptEvent) bool {
		select {
		case out <- attemptEventModel(ctx, ev):
			return true
		case <-ctx.Done():
			return false
		}
	}
	flush := func() bool {
		if pending == nil {
			return true
		}
		ev := *pending
		pending, timerC = nil, nil
		lastSent = time.Now()
		return send(ev)
	}
	for {
		select {
		case ev, ok := <-src:
			if !ok {
				flush()
				return
			}
			if ev.Kind == chat.EventDelta && window > 0 {
				if pending != nil {
					pending.Text += ev.Text
					pending.Seq = ev.Seq
					continue
				}
				if wait := window - time.Since(lastSent); wait > 0 {
					p := ev
					pending = &p
					if timer == nil {
						timer = time.NewTimer(wait)
					} else {
						timer.Reset(wait)
					}
					timerC = timer.C
					continue
				}
				lastSent = time.Now()
				if !send(ev) {
					drain(src)
					return
				}
				continue
			}
			if !flush() || !send(ev) {
				drain(src)
				return
			}
		case <-timerC:
			timerC = nil
			if !flush() {
				drain(src)
				return
			}
		case <-ctx.Done():
			drain(src)
			return
		}
	}
}
