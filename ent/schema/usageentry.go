package schema

import (
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/authz"
)

// UsageEntry is one line of the append-only usage ledger (internal/quota,
// internal/quota/README.md): a RESERVE made before a
// model call, the SETTLE or REFUND that closes it (reservation_id names
// it; a reservation is closed at most once), or a GRANT. Tokens and cost
// (micro-units, from internal/quota's Pricing) are what the entry moves.
//
// Members read their own entries, admins the tenant's; only the engine's
// metering job writes, and only the purge job deletes (with the tenant).
type UsageEntry struct{ ent.Schema }

// Mixin of the UsageEntry.
func (UsageEntry) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}}
}

// Fields of the UsageEntry.
func (UsageEntry) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("kind").Values("RESERVE", "SETTLE", "REFUND", "GRANT").Immutable(),
		field.String("user_id").NotEmpty().MaxLen(128).Immutable(),
		field.UUID("attempt_id", uuid.UUID{}).Optional().Nillable().Immutable(),
		field.Enum("purpose").Values("ANSWER", "REWRITE", "TITLE", "SUMMARY").Immutable(),
		field.String("model").Default("").MaxLen(128).Immutable(),
		field.String("profile").Optional().Nillable().MaxLen(128).Immutable().
			Comment("The model profile the call used, once profiles exist; null before."),
		field.Int("prompt_tokens").Default(0).Immutable(),
		field.Int("completion_tokens").Default(0).Immutable(),
		field.Int64("cost_micros").Default(0).Immutable(),
		field.String("period").Default("").MaxLen(16).Immutable().
			Comment("The quota period of a RESERVE's counters (DAILY, MONTHLY), empty without a quota."),
		field.Time("period_start").Optional().Nillable().Immutable(),
		field.UUID("reservation_id", uuid.UUID{}).Optional().Nillable().Immutable(),
		field.Time("created_at").Default(time.Now).Immutable(),
	}
}

// Edges of the UsageEntry: a SETTLE or REFUND closes one RESERVE.
func (UsageEntry) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("closed_by", UsageEntry.Type).Unique().
			From("reservation").Field("reservation_id").Unique().Immutable(),
	}
}

// Indexes of the UsageEntry.
func (UsageEntry) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "created_at"),
		index.Fields("tenant_id", "user_id", "created_at"),
		index.Fields("attempt_id"),
	}
}

// Annotations of the UsageEntry: not part of the GraphQL schema; the API
// reports usage through myUsage and usageSummary.
func (UsageEntry) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// Policy of the UsageEntry: reads are scoped by internal/authz
// (usageentry.Table); writes are the metering job's creates and the purge
// job's deletes.
func (UsageEntry) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(usageentry.Table)},
		// System jobs were allowed by the TenantMixin; every field is
		// immutable, so they can only create (the metering job) and delete
		// (the purge job). Viewers write nothing.
		Mutation: privacy.MutationPolicy{authz.AlwaysDeny()},
	}
}
