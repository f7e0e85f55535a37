package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
)

// AskRate is one user's ask-rate meter, shared by every instance on the
// database: the theoretical arrival time (TAT) of the generic cell rate
// algorithm, which is a token bucket stored as one instant
// (internal/askrate/README.md). One atomic upsert per ask reads and
// advances it (internal/chat, ratelimit_db.go).
//
// It is not part of the GraphQL API, and the Ent client may neither read
// nor write it: only the limiter's own statements reach the table.
type AskRate struct{ ent.Schema }

// Mixin of the AskRate.
func (AskRate) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}}
}

// Fields of the AskRate.
func (AskRate) Fields() []ent.Field {
	return []ent.Field{
		field.String("tenant_id").NotEmpty().MaxLen(64).Immutable(),
		field.String("user_id").NotEmpty().MaxLen(128).Immutable(),
		field.Int64("tat").
			Comment("The theoretical arrival time, in microseconds since the Unix epoch: the bucket is full when it is not after now, and refuses an ask that would move it past now + burst × interval."),
	}
}

// Indexes of the AskRate: one row per user; the limiter's upsert conflicts
// on it.
func (AskRate) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "user_id").Unique(),
	}
}

// Annotations of the AskRate.
func (AskRate) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// Policy of the AskRate: no query or mutation through Ent, for any viewer
// or job; the limiter meters with its own statements.
func (AskRate) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{authz.AlwaysDeny()},
		Mutation: privacy.MutationPolicy{authz.AlwaysDeny()},
	}
}
