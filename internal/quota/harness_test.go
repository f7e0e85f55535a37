package quota_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/quota"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Viewers: members and an admin of the demo tenant, and gus of another
// tenant (globex).
var (
	alice = &viewer.Viewer{TenantID: demo.TenantID, UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}
	admin = &viewer.Viewer{TenantID: demo.TenantID, UserID: "root", Roles: []viewer.Role{viewer.RoleAdmin}}
	gus   = &viewer.Viewer{TenantID: "globex", UserID: "gus", Roles: []viewer.Role{viewer.RoleMember}}
)

func as(v *viewer.Viewer) context.Context { return viewer.NewContext(context.Background(), v) }

func code(err error) domain.Code { return domain.ErrorCode(err) }

// clock is a settable clock: real time plus an offset.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// lease is the attempt lease the service's reconciliation waits for.
const lease = 5 * time.Second

// env is the metering service on one backend: the demo tenant (its
// settings the defaults with the quota q) with one knowledge base, and the
// service on a settable clock.
type env struct {
	db    *store.DB
	svc   *quota.Service
	clock *clock
	kb    uuid.UUID
}

// forEach runs fn on both backends with a fresh environment under the
// token quota q (zero: none).
func forEach(t *testing.T, q domain.TokenQuota, fn func(t *testing.T, e *env)) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		st := domain.DefaultTenantSettings()
		st.TokenQuotaPeriod, st.TokenQuotaKind, st.TokenQuotaTenantTokens, st.TokenQuotaUserTokens = q.Period, q.Kind, q.TenantTokens, q.UserTokens
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		require.NoError(t, db.Client.Tenant.Create().SetID(demo.TenantID).SetName(demo.TenantName).SetSettings(st).Exec(sys))
		kb, err := db.Client.KnowledgeBase.Create().SetTenantID(demo.TenantID).SetName(demo.KnowledgeBaseName).
			SetEmbeddingModel("offline-hash-1024").SetEmbeddingDimensions(1024).Save(sys)
		require.NoError(t, err)
		e := &env{db: db, clock: &clock{}, kb: kb.ID}
		e.svc = quota.NewService(db, quota.Options{Now: e.clock.now, Lease: lease})
		fn(t, e)
	})
}

// conversation creates a conversation of v in knowledge base kb through
// Ent, as its owner.
func (e *env) conversation(t *testing.T, v *viewer.Viewer, kb uuid.UUID) *ent.Conversation {
	t.Helper()
	now := time.Now()
	c, err := e.db.Client.Conversation.Create().SetUserID(v.UserID).SetKnowledgeBaseID(kb).
		SetExpiresAt(now.Add(24 * time.Hour)).SetAbsoluteExpiresAt(now.Add(30 * 24 * time.Hour)).Save(as(v))
	require.NoError(t, err)
	return c
}

// foreignUser gives another tenant (globex) the user gus with a
// conversation.
func (e *env) foreignUser(t *testing.T) {
	t.Helper()
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	require.NoError(t, e.db.Client.Tenant.Create().SetID(gus.TenantID).SetName("Globex").Exec(sys))
	kb, err := e.db.Client.KnowledgeBase.Create().SetTenantID(gus.TenantID).SetName("Globex help").
		SetEmbeddingModel("offline-hash-1024").SetEmbeddingDimensions(1024).Save(sys)
	require.NoError(t, err)
	e.conversation(t, gus, kb.ID)
}

// ledger returns every usage entry, oldest first.
func ledger(t *testing.T, db *store.DB) []*ent.UsageEntry {
	t.Helper()
	es, err := db.Client.UsageEntry.Query().Order(ent.Asc(usageentry.FieldCreatedAt), ent.Asc(usageentry.FieldID)).
		All(viewer.SystemJobContext(context.Background(), viewer.JobMeter))
	require.NoError(t, err)
	return es
}

// totals reads the counters of the current period.
func totals(t *testing.T, db *store.DB, user string, q domain.TokenQuota) quota.Totals {
	t.Helper()
	tot, err := quota.New(db, nil).Read(context.Background(), demo.TenantID, user, q, time.Now())
	require.NoError(t, err)
	return tot
}
