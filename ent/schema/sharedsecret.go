package schema

import (
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/viewer"
)

// SharedSecret is a secret that every replica on the database agrees on
// without configuration: the first replica to start writes it, and the
// others read the row that won (internal/sharedsecret). Its one use is the
// development broker secret; production configures RAGCHAT_BROKER_SECRET
// and never reads it. It is not tenant data.
type SharedSecret struct{ ent.Schema }

// Fields of the SharedSecret.
func (SharedSecret) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().MaxLen(64).Immutable().
			Comment("What the secret is for, e.g. \"broker\"."),
		field.String("secret").NotEmpty().Sensitive().Immutable(),
		field.Time("created_at").Default(time.Now).Immutable(),
	}
}

// Annotations of the SharedSecret: not in the GraphQL schema.
func (SharedSecret) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// Policy of the SharedSecret: only the shared-secret job
// (viewer.JobSharedSecrets) may read or write it; every viewer, and every
// other job, is denied.
func (SharedSecret) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{authz.AllowIfJob(viewer.JobSharedSecrets), authz.AlwaysDeny()},
		Mutation: privacy.MutationPolicy{authz.AllowIfJob(viewer.JobSharedSecrets), authz.AlwaysDeny()},
	}
}
