package tenantsettings_test

import (
	"context"
	"net/http"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Viewers: members, an agent and admins of the demo tenant, and an admin
// of another tenant.
var (
	alice    = &viewer.Viewer{TenantID: demo.TenantID, UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}
	admin    = &viewer.Viewer{TenantID: demo.TenantID, UserID: "root", Roles: []viewer.Role{viewer.RoleAdmin}}
	stranger = &viewer.Viewer{TenantID: "globex", UserID: "alice", Roles: []viewer.Role{viewer.RoleAdmin}}
)

func as(v *viewer.Viewer) context.Context { return viewer.NewContext(context.Background(), v) }

func code(err error) domain.Code { return domain.ErrorCode(err) }

func ptr[T any](v T) *T { return &v }

// env is the settings service on one backend with the demo tenant at the
// default settings; the server's chat model is the offline model's.
type env struct {
	db  *store.DB
	svc *tenantsettings.Service
}

// forEach runs fn on both backends with a fresh environment.
func forEach(t *testing.T, fn func(t *testing.T, e *env)) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		require.NoError(t, db.Client.Tenant.Create().SetID(demo.TenantID).SetName(demo.TenantName).
			SetSettings(domain.DefaultTenantSettings()).Exec(sys))
		fn(t, &env{db: db, svc: tenantsettings.New(db.Client, offline.ChatModel)})
	})
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
