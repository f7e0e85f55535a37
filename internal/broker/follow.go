package broker

import (
	"context"
	"errors"
	"time"
)

// The backoff of Follow while subscribing fails.
const (
	followFirstDelay = 50 * time.Millisecond
	followMaxDelay   = 5 * time.Second
)

// Follow hands every event of topic to handle, in order, until ctx ends or
// b closes. It starts with sub, a subscription to topic the caller opened
// (so that nothing published after that is missed), or subscribes itself
// when sub is nil. Whenever the subscription ends early (it lagged, its
// topic expired, or the bus reset it) Follow subscribes again, waiting from
// 50 ms up to 5 s between failed attempts, and hands on the backlog the new
// subscription finds before its live events: a follower must tolerate
// events it has seen before and, for what was lost in between, rely on a
// source other than the broker.
func Follow(ctx context.Context, b Broker, topic string, sub *Subscription, handle func(Event)) {
	delay := followFirstDelay
	for {
		if sub == nil {
			var err error
			if sub, err = b.Subscribe(ctx, topic); err != nil {
				if errors.Is(err, ErrClosed) || ctx.Err() != nil {
					return
				}
				t := time.NewTimer(delay)
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
				delay = min(2*delay, followMaxDelay)
				continue
			}
		}
		delay = followFirstDelay
		backlog, _ := sub.Backlog()
		for _, ev := range backlog {
			handle(ev)
		}
		for ev := range sub.C() {
			handle(ev)
		}
		err := sub.Err()
		sub.Close()
		sub = nil
		if ctx.Err() != nil || errors.Is(err, ErrClosed) {
			return
		}
	}
}
