package authwatch_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/authwatch"
	"github.com/ragchat/ragchat/internal/broker"
)

// TestAccessStampsMoveOnEveryReplica: a change of one tenant's document
// access moves that tenant's stamp at once on the replica that made it, and
// on the other replica by the time the broker delivers anything published
// after it; the other tenant's stamp stays, and so does every stamp while
// nothing changes (a cached verdict stays valid without a database read).
func TestAccessStampsMoveOnEveryReplica(t *testing.T) {
	eachDeployment(t, func(t *testing.T, r replicas) {
		a, b := authwatch.NewAccess(r.a, quiet), authwatch.NewAccess(r.b, quiet)
		t.Cleanup(a.Close)
		t.Cleanup(b.Close)
		aAcme, bAcme, bGlobex := a.Stamp("acme"), b.Stamp("acme"), b.Stamp("globex")
		for range 3 {
			require.Equal(t, aAcme, a.Stamp("acme"), "no change, no new stamp")
			require.Equal(t, bAcme, b.Stamp("acme"))
		}

		a.Changed(context.Background(), "acme")
		assert.NotEqual(t, aAcme, a.Stamp("acme"), "the replica that made the change")
		marker(t, r.a, r.b)
		assert.NotEqual(t, bAcme, b.Stamp("acme"), "the other replica, before it handles a later event")
		assert.Equal(t, bGlobex, b.Stamp("globex"), "another tenant's stamp")

		// And back: a change made on b reaches a.
		aAcme = a.Stamp("acme")
		b.Changed(context.Background(), "acme")
		marker(t, r.b, r.a)
		assert.NotEqual(t, aAcme, a.Stamp("acme"))
	})
}

// TestAccessStampsMoveWhenEventsMayBeLost: when the bus may have lost
// events (the PostgreSQL listener reconnected, which lib/pq reports with
// a nil notification) every tenant's stamp moves, so that a change made on
// another replica meanwhile cannot leave a cached verdict standing; and
// likewise when the stamps' own subscription lagged.
func TestAccessStampsMoveWhenEventsMayBeLost(t *testing.T) {
	t.Run("busReset", func(t *testing.T) {
		eachDeployment(t, func(t *testing.T, r replicas) {
			if r.terminateListeners == nil {
				t.Skip("a Memory broker has no bus")
			}
			a, b := authwatch.NewAccess(r.a, quiet), authwatch.NewAccess(r.b, quiet)
			t.Cleanup(a.Close)
			t.Cleanup(b.Close)
			// a's own change first: its topic is then one that b was never
			// fed by and a only published to, which a reset leaves alone.
			a.Changed(context.Background(), "acme")
			before, aBefore := b.Stamp("globex"), a.Stamp("globex")
			r.terminateListeners(t)
			require.Eventually(t, func() bool { return b.Stamp("globex") != before }, hangGuard, time.Millisecond,
				"b's stamps never moved after its listener reconnected")
			require.Eventually(t, func() bool { return a.Stamp("globex") != aBefore }, hangGuard, time.Millisecond,
				"a's stamps never moved after its listener reconnected")
		})
	})
	t.Run("lagged", func(t *testing.T) {
		m := broker.NewMemory(broker.MemoryOptions{SubscriberBuffer: 2})
		t.Cleanup(func() { _ = m.Close() })
		a := authwatch.NewAccess(m, quiet)
		other := authwatch.NewAccess(m, quiet)
		before := a.Stamp("globex")
		for range 3 { // one more than a's buffer holds
			other.Changed(context.Background(), "acme")
		}
		assert.NotEqual(t, before, a.Stamp("globex"), "a lagged subscription may have lost any tenant's change")
		settled := a.Stamp("globex")
		assert.Equal(t, settled, a.Stamp("globex"), "once resubscribed, stamps hold again")
	})
}
