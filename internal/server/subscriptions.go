package server

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/waitgroup"
	"github.com/ragchat/ragchat/resolvers"
)

// subscriptionGate admits subscriptions (resolvers.SubscriptionGate): it
// caps subscriptions per WebSocket connection, refuses new ones while
// shutting down, counts active ones, and ends them all on shutdown, which
// gqlgen does not do by itself (gqlgen #2610).
type subscriptionGate struct {
	perConn int
	metrics *Metrics

	stopCtx context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

var _ resolvers.SubscriptionGate = (*subscriptionGate)(nil)

func newSubscriptionGate(perConn int, metrics *Metrics) *subscriptionGate {
	ctx, cancel := context.WithCancel(context.Background())
	return &subscriptionGate{perConn: perConn, metrics: metrics, stopCtx: ctx, stop: cancel}
}

// connSubs counts one WebSocket connection's active subscriptions.
type connSubs struct{ n atomic.Int32 }

type connSubsKey struct{}

// withConnSubs gives a WebSocket connection's context its counter.
func withConnSubs(ctx context.Context) context.Context {
	return context.WithValue(ctx, connSubsKey{}, &connSubs{})
}

// Subscribe admits one subscription of kind.
func (g *subscriptionGate) Subscribe(ctx context.Context, kind string) (context.Context, func(), error) {
	if g.stopCtx.Err() != nil {
		g.metrics.subscriptionsDeny.WithLabelValues("shutting_down").Inc()
		return nil, nil, domain.Errorf(domain.CodeUnavailable, "server shutting down; reconnect and resubscribe")
	}
	cs, _ := ctx.Value(connSubsKey{}).(*connSubs)
	if cs != nil {
		if int(cs.n.Add(1)) > g.perConn {
			cs.n.Add(-1)
			g.metrics.subscriptionsDeny.WithLabelValues("per_connection_limit").Inc()
			return nil, nil, domain.Errorf(domain.CodeRateLimited, "at most %d subscriptions per connection", g.perConn).
				With("limit", "subscriptionsPerConnection")
		}
	}
	g.wg.Add(1)
	g.metrics.subscriptions.WithLabelValues(kind).Inc()
	ctx, cancel := context.WithCancel(ctx)
	unregister := context.AfterFunc(g.stopCtx, cancel)
	var once sync.Once
	release := func() {
		once.Do(func() {
			unregister()
			cancel()
			if cs != nil {
				cs.n.Add(-1)
			}
			g.metrics.subscriptions.WithLabelValues(kind).Dec()
			g.wg.Done()
		})
	}
	return ctx, release, nil
}

// cancelAll ends every active subscription and refuses new ones, then waits
// for the active ones to release (or ctx to end).
func (g *subscriptionGate) cancelAll(ctx context.Context) {
	g.stop()
	done := waitgroup.Done(&g.wg)
	select {
	case <-done:
	case <-ctx.Done():
	}
}
