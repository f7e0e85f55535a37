package chat_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/quota"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// TestReconcileSettlesAtTheProfilesPrice: a reservation a crash left open
// for an answer that COMPLETED on a model profile is settled by the
// reaper's reconciliation at the profile's prices, as the answer's own run
// would have settled it, not at the server model's list price (zero
// here). Both backends.
func TestReconcileSettlesAtTheProfilesPrice(t *testing.T) {
	q := domain.TokenQuota{Kind: domain.QuotaSoft, TenantTokens: reservation() * 100}
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		var svc *modelprofile.Service
		e := newEnvDeps(t, db, nil, func(d *chat.Deps) {
			svc = modelprofile.New(db.Client, modelprofile.NewEndpoints(d.Model, d.Model, nil))
			d.Models = svc
		}, withQuota(q))
		name, endpoint, model := "priced", "offline", "m"
		in, out, yes := int64(3_000_000), int64(7_000_000), true
		p, err := svc.Create(as(admin), modelprofile.Input{Name: &name, Endpoint: &endpoint, Model: &model,
			PriceInputPerM: &in, PriceOutputPerM: &out, IsDefault: &yes})
		require.NoError(t, err)

		o := e.ask(t, alice, e.conversation(t, alice).ID, "上传文件最大是多少？")
		require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
		require.Equal(t, p.ID, *o.attempt.ModelProfileID)
		chat.WaitIdle(e.eng)

		// The crash: a reservation for the completed answer that its run
		// never closed.
		id := o.attempt.ID
		tx, err := e.db.Client.Tx(context.Background())
		require.NoError(t, err)
		_, err = quota.New(e.db, nil).Reserve(context.Background(), tx,
			quota.Call{TenantID: demo.TenantID, UserID: alice.UserID, AttemptID: &id, Purpose: usageentry.PurposeANSWER, Profile: &name},
			q, time.Now(), reservation())
		require.NoError(t, err)
		require.NoError(t, tx.Commit())
		e.clock.advance(time.Hour)
		n, err := e.quota.Reconcile(context.Background())
		require.NoError(t, err)
		require.Equal(t, 1, n)

		es := ledger(t, e.db)
		last := es[len(es)-1]
		require.Equal(t, usageentry.KindSETTLE, last.Kind)
		require.NotNil(t, last.ReservationID, "the reconciliation's settle")
		want := (in*int64(o.attempt.PromptTokens) + out*int64(o.attempt.CompletionTokens) + 999_999) / 1_000_000
		assert.Positive(t, want)
		assert.Equal(t, want, last.CostMicros, "priced at the profile's prices")
	})
}
