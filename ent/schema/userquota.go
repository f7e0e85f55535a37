package schema

import (
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/ent/userquota"
	"github.com/ragchat/ragchat/internal/authz"
)

// UserQuota is an admin's override of one user's token limit per quota
// period (setUserQuota, docs/API.md, "Quotas and usage"). It takes
// precedence over the tenant's per-user setting (tokenQuotaUserTokens);
// tokens 0 means the user has no per-user limit. Removing the override
// deletes the row.
type UserQuota struct{ ent.Schema }

// Mixin of the UserQuota.
func (UserQuota) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}}
}

// Fields of the UserQuota.
func (UserQuota) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").NotEmpty().MaxLen(128).Immutable(),
		field.Int64("tokens").NonNegative(),
		field.String("updated_by").Default("").MaxLen(128),
		field.Time("updated_at").Default(time.Now),
	}
}

// Indexes of the UserQuota: one override per user of a tenant.
func (UserQuota) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "user_id").Unique(),
	}
}

// Annotations of the UserQuota: not part of the GraphQL schema; myUsage
// reports the effective limit.
func (UserQuota) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// Policy of the UserQuota: members read their own override, admins the
// tenant's (internal/authz, userquota.Table). Viewers write nothing: the
// metering job writes (internal/quota's SetOverride), once the engine has
// checked that the viewer is an admin of the tenant (setUserQuota), like
// the ledger's GRANT entries.
func (UserQuota) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{authz.FilterScope(userquota.Table)},
		Mutation: privacy.MutationPolicy{authz.AlwaysDeny()},
	}
}
