package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
)

// Feedback is one user's rating of one COMPLETED attempt.
type Feedback struct{ ent.Schema }

// Mixin of the Feedback.
func (Feedback) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, OwnerMixin{}, TimeMixin{}}
}

// Fields of the Feedback.
func (Feedback) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("attempt_id", uuid.UUID{}).Immutable(),
		field.String("user_id").NotEmpty().MaxLen(128).Immutable(),
		field.Enum("rating").Values("UP", "DOWN"),
		// Typed end to end: the GraphQL output is [FeedbackReason!] like the
		// input, so that generated clients keep the enum.
		field.JSON("reason_codes", []domain.FeedbackReason{}).Optional().
			Annotations(entgql.Type("[FeedbackReason!]")),
		field.Text("comment").Optional().Nillable(),
	}
}

// Edges of the Feedback.
func (Feedback) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("attempt", Attempt.Type).Ref("feedback").
			Field("attempt_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Feedback.
func (Feedback) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("attempt_id", "user_id").Unique(),
		index.Fields("tenant_id", "created_at"),
		index.Fields("tenant_id", "rating", "created_at"),
	}
}

// Annotations of the Feedback.
func (Feedback) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}

// Policy of the Feedback: rows are scoped by internal/authz (feedback.Table).
func (Feedback) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(feedback.Table)},
		Mutation: privacy.MutationPolicy{
			authz.FilterScope(feedback.Table),
		},
	}
}
