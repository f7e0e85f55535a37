package support_test

import (
	"context"
	"net/http"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/support"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Viewers of the demo tenant: a member and a support agent.
var (
	alice = &viewer.Viewer{TenantID: demo.TenantID, UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}
	sam   = &viewer.Viewer{TenantID: demo.TenantID, UserID: "sam", Roles: []viewer.Role{viewer.RoleSupport}}
)

func as(v *viewer.Viewer) context.Context { return viewer.NewContext(context.Background(), v) }

func code(err error) domain.Code { return domain.ErrorCode(err) }

// clock is a settable clock: real time plus an offset.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// env is the support workflow on one backend: the demo tenant with one
// knowledge base, and the service on a settable clock.
type env struct {
	db    *store.DB
	svc   *support.Service
	clock *clock
	kb    uuid.UUID
}

// forEach runs fn on both backends with a fresh environment whose tenant
// settings are the defaults as edited by opts.
func forEach(t *testing.T, fn func(t *testing.T, e *env), opts ...func(*domain.TenantSettings)) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		st := domain.DefaultTenantSettings()
		for _, o := range opts {
			o(&st)
		}
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		require.NoError(t, db.Client.Tenant.Create().SetID(demo.TenantID).SetName(demo.TenantName).SetSettings(st).Exec(sys))
		kb, err := db.Client.KnowledgeBase.Create().SetTenantID(demo.TenantID).SetName(demo.KnowledgeBaseName).
			SetEmbeddingModel("offline-hash-1024").SetEmbeddingDimensions(1024).Save(sys)
		require.NoError(t, err)
		e := &env{db: db, clock: &clock{}, kb: kb.ID}
		e.svc = support.New(db.Client, support.Options{Now: e.clock.now})
		fn(t, e)
	})
}

// conversation creates a conversation of v through Ent, as its owner.
func (e *env) conversation(t *testing.T, v *viewer.Viewer) *ent.Conversation {
	t.Helper()
	now := time.Now()
	c, err := e.db.Client.Conversation.Create().SetUserID(v.UserID).SetKnowledgeBaseID(e.kb).
		SetExpiresAt(now.Add(24 * time.Hour)).SetAbsoluteExpiresAt(now.Add(30 * 24 * time.Hour)).Save(as(v))
	require.NoError(t, err)
	return c
}

// supportWorld is alice's conversation and a grant for sam on it.
type supportWorld struct {
	conv  uuid.UUID
	grant *ent.SupportGrant
}

// grantedWorld files sam's request on a new conversation of alice's, and
// has alice approve it unless pending is set.
func grantedWorld(t *testing.T, e *env, pending bool) supportWorld {
	t.Helper()
	conv := e.conversation(t, alice)
	g, err := e.svc.Request(as(sam), support.RequestInput{ConversationID: conv.ID, Reason: "ticket 7"})
	require.NoError(t, err)
	if !pending {
		g, err = e.svc.Approve(as(alice), g.ID)
		require.NoError(t, err)
	}
	return supportWorld{conv: conv.ID, grant: g}
}

func goroutines() int {
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	return runtime.NumGoroutine()
}

// assertGoroutinesBack waits until the goroutine count is back to
// baseline, and shows the goroutines if it is not.
func assertGoroutinesBack(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for goroutines() > baseline {
		if time.Now().After(deadline) {
			var b strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
			t.Errorf("goroutines: baseline %d, now %d\n%s", baseline, runtime.NumGoroutine(), b.String())
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
