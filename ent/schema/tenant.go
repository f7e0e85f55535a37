package schema

import (
	"context"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	gen "github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/hook"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
)

// Tenant is an organisation. Its id is a short string key such as "acme".
type Tenant struct{ ent.Schema }

// Fields of the Tenant.
func (Tenant) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().MaxLen(64).Immutable().
			Match(tenantKeyPattern),
		field.String("name").NotEmpty().MaxLen(200),
		field.JSON("settings", domain.TenantSettings{}).Optional().
			Annotations(entgql.Skip()),
		field.Int("settings_version").Default(0).NonNegative().
			Comment("Optimistic concurrency version of settings, bumped on every settings change."),
		field.Time("created_at").Default(time.Now).Immutable(),
		field.Time("updated_at").Default(time.Now).UpdateDefault(time.Now),
	}
}

// Policy of the Tenant: a viewer sees only their own tenant; only system
// jobs create or delete tenants; admins may update their own tenant.
func (Tenant) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{
			authz.DecideShareScope(),
			authz.DenyIfNoViewer(),
			authz.AllowIfSystemJob(),
			authz.FilterOwnTenantRow(),
		},
		Mutation: privacy.MutationPolicy{
			authz.DecideShareScope(),
			authz.DenyIfNoViewer(),
			authz.AllowIfSystemJob(),
			privacy.OnMutationOperation(authz.AlwaysDeny(), ent.OpCreate|ent.OpDelete|ent.OpDeleteOne),
			authz.DenyIfNotAdmin(),
			authz.DenyEmptyUpdate(),
			authz.FilterOwnTenantRow(),
		},
	}
}

// Hooks of the Tenant: every write of settings bumps settings_version, so
// that updateTenantSettings' expectedVersion also sees changes made outside
// the API (provisioning, tests).
func (Tenant) Hooks() []ent.Hook {
	return []ent.Hook{hook.On(bumpSettingsVersion, ent.OpUpdate|ent.OpUpdateOne)}
}

// bumpSettingsVersion adds 1 to settings_version on a mutation that sets
// or clears settings, unless the mutation already changes the version.
func bumpSettingsVersion(next ent.Mutator) ent.Mutator {
	return hook.TenantFunc(func(ctx context.Context, m *gen.TenantMutation) (ent.Value, error) {
		_, set := m.Settings()
		_, added := m.AddedSettingsVersion()
		_, versioned := m.SettingsVersion()
		if (set || m.SettingsCleared()) && !added && !versioned {
			m.AddSettingsVersion(1)
		}
		return next.Mutate(ctx, m)
	})
}

// Annotations of the Tenant.
func (Tenant) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
