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
	"github.com/ragchat/ragchat/internal/viewer"
)

// PersistedQuery is one automatic persisted query (Apollo's APQ): a query
// document under the SHA-256 of its text, shared by every instance on the
// database, so that a hash registered through one replica is known to all
// (internal/persisted/README.md). It is not tenant data: the
// same text under the same hash serves every tenant, and it carries no
// viewer's data. The table is bounded: internal/persisted evicts the
// least recently used rows past its cap.
type PersistedQuery struct{ ent.Schema }

// Fields of the PersistedQuery.
func (PersistedQuery) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().MaxLen(64).Immutable().
			Comment("The lowercase hex SHA-256 of the query text, verified before the row is written."),
		field.Text("query").NotEmpty().Immutable(),
		field.Time("created_at").Default(time.Now).Immutable(),
		field.Time("last_used_at").Default(time.Now).
			Comment("When an instance last served the query (refreshed at most once per touch interval); eviction takes the oldest first."),
	}
}

// Indexes of the PersistedQuery: eviction orders by last use.
func (PersistedQuery) Indexes() []ent.Index {
	return []ent.Index{index.Fields("last_used_at")}
}

// Annotations of the PersistedQuery.
func (PersistedQuery) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// Policy of the PersistedQuery: only the persisted-query system job
// (viewer.JobPersistedQueries) may read or write it; every viewer, and
// every other job, is denied.
func (PersistedQuery) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{authz.AllowIfJob(viewer.JobPersistedQueries), authz.AlwaysDeny()},
		Mutation: privacy.MutationPolicy{authz.AllowIfJob(viewer.JobPersistedQueries), authz.AlwaysDeny()},
	}
}
