package server

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/internal/chans"
	"github.com/ragchat/ragchat/internal/chat"
)

// Delta coalescing is delivery policy of the transports: the resolvers
// hand every attempt stream to deltaPolicy.deliver (resolvers.Deps
// DeliverAttempt), which decides when each event goes out, and convert and
// send what it passes on.

// DefaultDeltaWindow is the default shortest gap between two coalesced
// DELTA events (RAGCHAT_DELTA_WINDOW, internal/config).
const DefaultDeltaWindow = 40 * time.Millisecond

// DefaultDeltaBudget is the default latency budget of coalesced deltas
// (RAGCHAT_DELTA_BUDGET): no answer text is held back longer than this.
const DefaultDeltaBudget = 400 * time.Millisecond

// DefaultDeltaBatch is the text, in bytes, that a coalesced DELTA waits
// for before it goes out ahead of the latency budget.
const DefaultDeltaBatch = 128

// deltaPolicy is the adaptive coalescing window of answer deltas
// (docs/API.md, "Streaming an answer"). Each DELTA event costs about 100
// bytes of framing and keys on top of its text, so the window adapts to
// the model's pace: a DELTA carries at least batch bytes when the model
// is fast enough to fill them within the budget, and otherwise whatever
// arrived within the budget.
//   - The first DELTA, and one after budget without any, goes out at once
//     (the first token is never delayed).
//   - Text that follows is held, merged into one pending DELTA (texts
//     concatenated, the seq of the last).
//   - The pending DELTA goes out once it holds batch bytes and window has
//     passed since the previous event, or when its oldest text has waited
//     budget, or before any other event, whichever comes first.
//
// So a fast model sends one event per window with batch bytes or more, a
// model at a chat pace (about 65 tokens/s) one per budget, and no text
// reaches the subscriber more than budget after the engine published it.
// A zero window forwards every event as it comes.
type deltaPolicy struct {
	window time.Duration
	budget time.Duration
	batch  int
}

// newDeltaPolicy is the policy of the configured window and budget
// (config.HTTPConfig): a window of 0 or less sends every delta as it
// comes; a budget of 0 or less is DefaultDeltaBudget, and never below the
// window.
func newDeltaPolicy(window, budget time.Duration) deltaPolicy {
	window = max(window, 0)
	if budget <= 0 {
		budget = DefaultDeltaBudget
	}
	return deltaPolicy{window: window, budget: max(budget, window), batch: DefaultDeltaBatch}
}

// coalescer applies a deltaPolicy to one stream. It is driven with
// explicit times, so that tests can replay a model's pace without a clock.
type coalescer struct {
	p        deltaPolicy
	pending  *chat.AttemptEvent
	since    time.Time // when the oldest pending text arrived
	lastSent time.Time // when the last event went out; zero before the first
}

// offer takes a DELTA arriving at now. It reports true when the DELTA is
// to be sent at once (it is then recorded as sent); otherwise it is pending.
func (c *coalescer) offer(ev chat.AttemptEvent, now time.Time) bool {
	if c.pending != nil {
		c.pending.Text += ev.Text
		c.pending.Seq = ev.Seq
		return false
	}
	if c.lastSent.IsZero() || now.Sub(c.lastSent) >= c.p.budget {
		c.lastSent = now
		return true
	}
	p := ev
	c.pending, c.since = &p, now
	return false
}

// due is when the pending DELTA must go out; zero when none is pending.
func (c *coalescer) due() time.Time {
	if c.pending == nil {
		return time.Time{}
	}
	d := c.since.Add(c.p.budget)
	if len(c.pending.Text) >= c.p.batch {
		if early := c.lastSent.Add(c.p.window); early.Before(d) {
			d = early
		}
	}
	return d
}

// take returns the pending DELTA, if any, recorded as sent at now.
func (c *coalescer) take(now time.Time) (chat.AttemptEvent, bool) {
	if c.pending == nil {
		return chat.AttemptEvent{}, false
	}
	ev := *c.pending
	c.pending = nil
	c.lastSent = now
	return ev, true
}

// deliver forwards an attempt's events from src to send until src closes,
// ctx ends or send reports false (its subscriber is gone), coalescing
// DELTAs by the policy; then it drains src, which the engine closes once
// ctx ends, so that the engine's sender is never left blocked. Merging
// keeps the protocol's meaning: seq is still the answer's length after the
// delta, so resuming with afterSeq works unchanged. It has the signature
// of resolvers.AttemptDelivery.
func (policy deltaPolicy) deliver(ctx context.Context, src <-chan chat.AttemptEvent, send func(chat.AttemptEvent) bool) {
	var (
		co     = coalescer{p: policy}
		timer  *time.Timer
		timerC <-chan time.Time
		armed  time.Time
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	// arm points the timer at the pending DELTA's due time.
	arm := func() {
		due := co.due()
		switch {
		case due.IsZero():
			timerC, armed = nil, time.Time{}
		case !due.Equal(armed):
			wait := time.Until(due)
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			timerC, armed = timer.C, due
		}
	}
	flush := func() bool {
		ev, ok := co.take(time.Now())
		arm()
		return !ok || send(ev)
	}
	for {
		select {
		case ev, ok := <-src:
			if !ok {
				flush()
				return
			}
			if ev.Kind == chat.EventDelta && policy.window > 0 {
				if co.offer(ev, time.Now()) {
					if !send(ev) {
						chans.Drain(src)
						return
					}
				}
				arm()
				continue
			}
			if !flush() || !send(ev) {
				chans.Drain(src)
				return
			}
		case <-timerC:
			armed = time.Time{}
			if !flush() {
				chans.Drain(src)
				return
			}
		case <-ctx.Done():
			chans.Drain(src)
			return
		}
	}
}
