package modelprofile_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

var (
	admin    = &viewer.Viewer{TenantID: "acme", UserID: "root", Roles: []viewer.Role{viewer.RoleAdmin}}
	alice    = &viewer.Viewer{TenantID: "acme", UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}, Groups: []string{"sales"}}
	bob      = &viewer.Viewer{TenantID: "acme", UserID: "bob", Roles: []viewer.Role{viewer.RoleMember}, Groups: []string{"eng"}}
	stranger = &viewer.Viewer{TenantID: "globex", UserID: "root", Roles: []viewer.Role{viewer.RoleAdmin}}
	outsider = &viewer.Viewer{TenantID: "globex", UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}, Groups: []string{"sales"}}
)

func as(v *viewer.Viewer) context.Context { return viewer.NewContext(context.Background(), v) }

func ptr[T any](v T) *T { return &v }

// env is the service on one backend with two tenants and the offline model
// on both the "default" and "offline" endpoints plus a "second" one.
type env struct {
	db  *store.DB
	svc *modelprofile.Service
}

func forEach(t *testing.T, fn func(t *testing.T, e *env)) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		for _, id := range []string{"acme", "globex"} {
			require.NoError(t, db.Client.Tenant.Create().SetID(id).SetName(id).
				SetSettings(domain.DefaultTenantSettings()).Exec(sys))
		}
		m := offline.New(offline.Options{})
		eps := modelprofile.NewEndpoints(m, m, map[string]llm.Model{"second": m})
		fn(t, &env{db: db, svc: modelprofile.New(db.Client, eps)})
	})
}

func field(err error) string {
	s, _ := domain.ErrorDetails(err)["field"].(string)
	return s
}

func TestAdminManagesProfiles(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := as(admin)
		p, err := e.svc.Create(ctx, modelprofile.Input{Name: ptr("fast"), Endpoint: ptr("second"), Model: ptr("model-a"),
			PriceInputPerM: ptr(int64(150_000)), PriceOutputPerM: ptr(int64(600_000)), IsDefault: ptr(true)})
		require.NoError(t, err)
		require.True(t, p.IsDefault)
		require.Equal(t, 0.2, p.TemperatureDefault)

		q, err := e.svc.Create(ctx, modelprofile.Input{Name: ptr("smart"), Endpoint: ptr("offline"), Model: ptr("model-b"), IsDefault: ptr(true)})
		require.NoError(t, err)
		p, err = e.svc.Get(ctx, p.ID)
		require.NoError(t, err)
		require.False(t, p.IsDefault, "a new default replaces the old one")
		require.True(t, q.IsDefault)

		_, err = e.svc.Create(ctx, modelprofile.Input{Name: ptr("fast"), Endpoint: ptr("offline"), Model: ptr("x")})
		require.Equal(t, domain.CodeBadUserInput, domain.ErrorCode(err))
		require.Equal(t, "name", field(err))

		u, err := e.svc.Update(ctx, p.ID, modelprofile.Input{TemperatureMax: ptr(1.0), AllowedGroups: &[]string{"sales"}})
		require.NoError(t, err)
		require.Equal(t, 1.0, u.TemperatureMax)
		require.Equal(t, []string{"sales"}, u.AllowedGroups)

		n, err := e.db.Client.AuditEvent.Query().Where(auditevent.TargetType("ModelProfile")).Count(ctx)
		require.NoError(t, err)
		require.Equal(t, 3, n)

		_, err = e.svc.Delete(ctx, q.ID)
		require.NoError(t, err)
		_, err = e.svc.Get(ctx, q.ID)
		require.Equal(t, domain.CodeNotFound, domain.ErrorCode(err))
	})
}

func TestProfileInputIsValidated(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		cases := []struct {
			name  string
			in    modelprofile.Input
			field string
		}{
			{"unknown endpoint", modelprofile.Input{Endpoint: ptr("nowhere")}, "endpoint"},
			{"empty model", modelprofile.Input{Model: ptr("")}, "model"},
			{"temperature bounds", modelprofile.Input{TemperatureMin: ptr(1.5), TemperatureMax: ptr(1.0)}, "temperatureMax"},
			{"temperature default", modelprofile.Input{TemperatureDefault: ptr(1.9), TemperatureMax: ptr(1.0)}, "temperatureDefault"},
			{"topP above 1", modelprofile.Input{TopPMax: ptr(1.5)}, "topPMax"},
			{"answer default above max", modelprofile.Input{MaxAnswerTokensMax: ptr(100), MaxAnswerTokensDefault: ptr(200)}, "maxAnswerTokensDefault"},
			{"negative price", modelprofile.Input{PriceInputPerM: ptr(int64(-1))}, "priceInputPerM"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				in := c.in
				in.Name = ptr("p-" + uuid.NewString()[:8])
				if in.Endpoint == nil {
					in.Endpoint = ptr("offline")
				}
				if in.Model == nil {
					in.Model = ptr("m")
				}
				_, err := e.svc.Create(as(admin), in)
				require.Equal(t, domain.CodeBadUserInput, domain.ErrorCode(err), "%v", err)
				require.Equal(t, c.field, field(err))
			})
		}
		_, err := e.svc.Create(as(alice), modelprofile.Input{Name: ptr("x"), Endpoint: ptr("offline"), Model: ptr("m")})
		require.Equal(t, domain.CodeForbidden, domain.ErrorCode(err))
		n, err := e.db.Client.ModelProfile.Query().Count(as(admin))
		require.NoError(t, err)
		require.Zero(t, n, "nothing written on refusal")
	})
}

func TestMembersSeeWhatTheyMayUse(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := as(admin)
		open, err := e.svc.Create(ctx, modelprofile.Input{Name: ptr("open"), Endpoint: ptr("offline"), Model: ptr("a")})
		require.NoError(t, err)
		sales, err := e.svc.Create(ctx, modelprofile.Input{Name: ptr("sales"), Endpoint: ptr("second"), Model: ptr("b"), AllowedGroups: &[]string{"sales", "ops"}})
		require.NoError(t, err)
		off, err := e.svc.Create(ctx, modelprofile.Input{Name: ptr("off"), Endpoint: ptr("offline"), Model: ptr("c"), Enabled: ptr(false)})
		require.NoError(t, err)

		names := func(v *viewer.Viewer) []string {
			ps, err := e.svc.Available(as(v))
			require.NoError(t, err)
			var out []string
			for _, p := range ps {
				out = append(out, p.Name)
			}
			return out
		}
		require.Equal(t, []string{"open", "sales"}, names(alice))
		require.Equal(t, []string{"open"}, names(bob))
		require.Equal(t, []string{"open", "sales"}, names(admin), "availableModels lists enabled profiles only, admins included")
		require.Empty(t, names(outsider))
		all, err := e.svc.List(as(admin))
		require.NoError(t, err)
		require.Len(t, all, 3)

		// Every profile a viewer may not use reads as missing.
		for _, c := range []struct {
			v  *viewer.Viewer
			id uuid.UUID
		}{{bob, sales.ID}, {alice, off.ID}, {outsider, open.ID}, {stranger, open.ID}, {alice, uuid.New()}} {
			_, err := e.svc.Get(as(c.v), c.id)
			require.Equal(t, domain.CodeNotFound, domain.ErrorCode(err))
			require.Equal(t, "model profile not found", domain.ErrorMessage(err))
		}
		_, err = e.svc.Update(as(stranger), open.ID, modelprofile.Input{Model: ptr("z")})
		require.Equal(t, domain.CodeNotFound, domain.ErrorCode(err))
	})
}
