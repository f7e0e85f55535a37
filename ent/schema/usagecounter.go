package schema

import (
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
)

// UsageCounter is the running total of one quota for one period, shared
// by every instance on the database: a tenant's (user_id "") or one
// user's tokens settled (used) and reserved. One conditional upsert
// reserves (internal/quota); settling and refunding move reserved to used
// or give it back. Its entries in the usage ledger explain every change.
//
// It is not part of the GraphQL API, and the Ent client may neither read
// nor write it: only internal/quota's statements reach the table.
type UsageCounter struct{ ent.Schema }

// Mixin of the UsageCounter.
func (UsageCounter) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}}
}

// Fields of the UsageCounter.
func (UsageCounter) Fields() []ent.Field {
	return []ent.Field{
		field.String("tenant_id").NotEmpty().MaxLen(64).Immutable(),
		field.String("user_id").MaxLen(128).Immutable().
			Comment("The user of a per-user quota; empty for the tenant's quota."),
		field.String("period").NotEmpty().MaxLen(16).Immutable(),
		field.Time("period_start").Immutable(),
		field.Int64("used").Default(0),
		field.Int64("reserved").Default(0),
		field.Int64("granted").Default(0).
			Comment("Tokens admins granted the user this period (GRANT entries); they raise the user's limit, never the tenant's."),
		field.Time("updated_at").Default(time.Now),
	}
}

// Indexes of the UsageCounter: one row per quota and period.
func (UsageCounter) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "user_id", "period", "period_start").Unique(),
	}
}

// Annotations of the UsageCounter.
func (UsageCounter) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// Policy of the UsageCounter: no query or mutation through Ent.
func (UsageCounter) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{authz.AlwaysDeny()},
		Mutation: privacy.MutationPolicy{authz.AlwaysDeny()},
	}
}
