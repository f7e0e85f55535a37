package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"

	"github.com/ragchat/ragchat/internal/domain"
)

// Attempt is one try at answering a USER message: PENDING until the model
// completes (COMPLETED) or fails, is cancelled or is interrupted (FAILED).
// Retries are new attempts that point at the one they retry.
type Attempt struct{ ent.Schema }

// Mixin of the Attempt.
func (Attempt) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, OwnerMixin{}, TimeMixin{}}
}

// Fields of the Attempt.
func (Attempt) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("conversation_id", uuid.UUID{}).Immutable(),
		field.UUID("user_message_id", uuid.UUID{}).Immutable(),
		field.UUID("retry_of_id", uuid.UUID{}).Optional().Nillable().Immutable(),
		field.UUID("reask_of_id", uuid.UUID{}).Optional().Nillable().Immutable().
			Comment("The stale attempt whose standalone question this attempt asks again (reaskAttempt)."),
		field.String("client_request_id").Optional().Nillable().MaxLen(128).Immutable().
			Comment("The idempotency key of the ask or retry that created it."),
		field.Enum("status").Values("PENDING", "COMPLETED", "FAILED").Default("PENDING"),
		field.Text("original_question").Immutable(),
		field.Text("standalone_question").Optional().Nillable(),
		field.Bool("requires_history").Default(false),
		field.Text("answer").Default("").
			Comment("The final answer; while PENDING, the last checkpoint of the partial answer."),
		field.Int("checkpoint_seq").Default(0).NonNegative().
			Comment("Length in code points of the checkpointed partial answer."),
		field.Time("checkpoint_at").Optional().Nillable(),
		field.Bool("refused").Default(false),
		field.String("refusal_reason").Optional().Nillable().MaxLen(64),
		field.String("failure_code").Optional().Nillable().MaxLen(64),
		field.Text("failure_message").Optional().Nillable(),
		field.String("model").Optional().Nillable().MaxLen(128),
		field.UUID("model_profile_id", uuid.UUID{}).Optional().Nillable().Immutable().
			Comment("The model profile the attempt answered with (docs/API.md, \"Model profiles\"); null: the server's model.").
			Annotations(entgql.Skip()),
		field.JSON("model_parameters", domain.ModelParameters{}).Optional().Immutable().
			Comment("The sampling parameters the attempt used, every one resolved.").
			Annotations(entgql.Skip()),
		field.Int("prompt_tokens").Default(0).NonNegative(),
		field.Int("completion_tokens").Default(0).NonNegative(),
		field.Int("total_tokens").Default(0).NonNegative(),
		field.JSON("context_manifest", &domain.ContextManifest{}).Optional().
			Annotations(entgql.Skip()),
		field.Int("summary_version").Default(0).NonNegative(),
		field.String("trace_id").Default("").MaxLen(64),
		field.Time("started_at").Immutable(),
		field.Time("first_token_at").Optional().Nillable(),
		field.Time("completed_at").Optional().Nillable(),
		field.String("lease_owner").Optional().Nillable().MaxLen(128).
			Annotations(entgql.Skip()),
		field.Time("lease_expires_at").Optional().Nillable().
			Annotations(entgql.Skip()),
	}
}

// Edges of the Attempt.
func (Attempt) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("conversation", Conversation.Type).Ref("attempts").
			Field("conversation_id").Unique().Required().Immutable(),
		edge.From("user_message", Message.Type).Ref("attempts").
			Field("user_message_id").Unique().Required().Immutable(),
		edge.To("retries", Attempt.Type).
			From("retry_of").Field("retry_of_id").Unique().Immutable(),
		edge.To("reasks", Attempt.Type).
			From("reask_of").Field("reask_of_id").Unique().Immutable().
			Annotations(entsql.OnDelete(entsql.SetNull)),
		edge.To("assistant_message", Message.Type).Unique().
			Annotations(entsql.OnDelete(entsql.SetNull)),
		edge.To("sources", Source.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("feedback", Feedback.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Attempt.
func (Attempt) Indexes() []ent.Index {
	return []ent.Index{
		// At most one PENDING attempt per conversation, enforced by the
		// database. The predicate is written the way PostgreSQL prints it
		// back, so that migration diffs stay empty; SQLite gets the plain
		// form (internal/store.MigrateSQLite).
		index.Fields("conversation_id").Unique().
			StorageKey("attempt_one_pending_per_conversation").
			Annotations(entsql.IndexWhere("((status)::text = 'PENDING'::text)")),
		index.Fields("conversation_id", "client_request_id").Unique(),
		index.Fields("conversation_id", "created_at"),
		index.Fields("user_message_id"),
		index.Fields("status", "lease_expires_at"),
		index.Fields("tenant_id", "created_at"),
	}
}

// Annotations of the Attempt.
func (Attempt) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.RelayConnection(),
		PreparedCreate{},
		entsql.Checks(map[string]string{
			"attempt_status_check": "status IN ('PENDING', 'COMPLETED', 'FAILED')",
		}),
	}
}

// Policy of the Attempt: rows are scoped by internal/authz (attempt.Table).
func (Attempt) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(attempt.Table)},
		Mutation: privacy.MutationPolicy{
			authz.FilterScope(attempt.Table),
		},
	}
}
