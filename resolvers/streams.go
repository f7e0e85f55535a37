package resolvers

import (
	"context"

	"github.com/ragchat/ragchat/internal/chans"
)

// admit asks the subscription gate for a slot. The returned context ends on
// server shutdown; release must be called when the subscription ends.
func (r *Resolver) admit(ctx context.Context, kind string) (context.Context, func(), error) {
	if r.subs == nil {
		return ctx, func() {}, nil
	}
	return r.subs.Subscribe(ctx, kind)
}

// forward sends first, then converts and sends every event of src to out
// (but those convert makes nil, which the viewer may not see), until src
// closes or ctx ends. When ctx ends first it drains src, which the feed
// closes on cancellation, so that neither side's goroutine is left
// blocked.
//
// first is the stream's SUBSCRIBED event (docs/API.md, "Knowing a stream
// is live"): src is the feed's subscription, registered with the broker
// before the engine returned it, so every event published after the client
// receives first reaches src. graphql-transport-ws and graphql-sse
// acknowledge no subscribe; this is the client's moment at which the
// stream is live.
func forward[E any, M comparable](ctx context.Context, src <-chan E, out chan<- M, first M, convert func(E) M) {
	var none M
	select {
	case out <- first:
	case <-ctx.Done():
		chans.Drain(src)
		return
	}
	for {
		select {
		case ev, ok := <-src:
			if !ok {
				return
			}
			m := convert(ev)
			if m == none {
				continue
			}
			select {
			case out <- m:
			case <-ctx.Done():
				chans.Drain(src)
				return
			}
		case <-ctx.Done():
			chans.Drain(src)
			return
		}
	}
}
