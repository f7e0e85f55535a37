package quota_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/quota"
)

// reserve holds tokens for a call of purpose for attempt id, in a
// transaction of its own, at now.
func reserve(t *testing.T, e *env, q domain.TokenQuota, id uuid.UUID, purpose usageentry.Purpose, now time.Time, tokens int64) {
	t.Helper()
	_, err := quota.New(e.db, nil).ReserveNow(context.Background(),
		quota.Call{TenantID: demo.TenantID, UserID: alice.UserID, AttemptID: &id, Purpose: purpose}, q, now, tokens)
	require.NoError(t, err)
}

// TestReconcileRefundsCrashedReservation: a reservation a crash left open
// (its attempt never written, or ended without a settle) is closed by the
// reaper's reconciliation once older than the lease: refunded, so the
// counters are back at zero. A second pass closes nothing.
func TestReconcileRefundsCrashedReservation(t *testing.T) {
	q := domain.TokenQuota{Kind: domain.QuotaHard, TenantTokens: 100_000}
	forEach(t, q, func(t *testing.T, e *env) {
		reserve(t, e, q, uuid.New(), usageentry.PurposeANSWER, time.Now(), 1000)
		n, err := e.svc.Reconcile(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n, "a reservation younger than the lease may still be settled by its run")
		e.clock.advance(time.Hour)
		n, err = e.svc.Reconcile(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		es := ledger(t, e.db)
		require.Len(t, es, 2)
		assert.Equal(t, usageentry.KindREFUND, es[1].Kind)
		assert.Equal(t, es[0].ID, *es[1].ReservationID)
		assert.Equal(t, quota.Totals{}, totals(t, e.db, alice.UserID, q))
		n, err = e.svc.Reconcile(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n)
	})
}

// TestReconcileWaitsForSideCalls: a side call's reservation (a title) may
// outlive its attempt's lease, so the reconciliation refunds it only once
// it is older than SideCallHold.
func TestReconcileWaitsForSideCalls(t *testing.T) {
	q := domain.TokenQuota{Kind: domain.QuotaHard, TenantTokens: 100_000}
	forEach(t, q, func(t *testing.T, e *env) {
		reserve(t, e, q, uuid.New(), usageentry.PurposeTITLE, time.Now(), 500)
		e.clock.advance(quota.SideCallHold - time.Minute)
		n, err := e.svc.Reconcile(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n, "older than the lease, younger than the hold")
		e.clock.advance(2 * time.Minute)
		n, err = e.svc.Reconcile(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.Equal(t, quota.Totals{}, totals(t, e.db, alice.UserID, q))
	})
}
