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

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/authz"
)

// SupportGrant is a support agent's delegated, read-only access to one
// conversation (internal/support/README.md): requested with
// a reason, approved or denied by the owner (or an admin, or automatically,
// per the tenant's policy), revocable, and limited in time. While APPROVED
// and not expired it lets the agent read the conversation's messages,
// attempts and sources, and nothing else; the grant never changes the
// conversation's owner.
type SupportGrant struct{ ent.Schema }

// Mixin of the SupportGrant.
func (SupportGrant) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, TimeMixin{}}
}

// Fields of the SupportGrant.
func (SupportGrant) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("conversation_id", uuid.UUID{}).Immutable(),
		field.String("agent_id").NotEmpty().MaxLen(128).Immutable().
			Comment("The support agent the grant is for (a JWT subject)."),
		field.String("conversation_owner_id").NotEmpty().MaxLen(128).Immutable().
			Comment("The conversation's owner, who approves and revokes."),
		field.Text("reason").NotEmpty().Immutable(),
		field.Enum("status").Values("PENDING", "APPROVED", "DENIED", "REVOKED").Default("PENDING"),
		field.Int64("duration_seconds").Positive().Immutable().
			Comment("How long the grant lasts once approved."),
		field.Time("expires_at").
			Comment("When the request (while PENDING) or the access (once APPROVED) ends.").
			Annotations(entgql.OrderField("EXPIRES_AT")),
		field.String("decided_by").Optional().Nillable().MaxLen(128),
		field.Time("decided_at").Optional().Nillable(),
		field.Text("decision_reason").Optional().Nillable(),
		field.String("revoked_by").Optional().Nillable().MaxLen(128),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

// Edges of the SupportGrant.
func (SupportGrant) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("conversation", Conversation.Type).Field("conversation_id").
			Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.Skip()),
	}
}

// Indexes of the SupportGrant.
func (SupportGrant) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("conversation_id", "agent_id", "status"),
		index.Fields("tenant_id", "conversation_owner_id", "created_at"),
		index.Fields("tenant_id", "agent_id", "created_at"),
	}
}

// Annotations of the SupportGrant.
func (SupportGrant) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.RelayConnection(),
		entgql.QueryField("supportGrants").Description(
			"The support grants the viewer may see, newest first by default: those on their own conversations, those they requested as a support agent, and, for admins, every grant of the tenant.",
		),
		entsql.Checks(map[string]string{
			"support_grant_status_check": "status IN ('PENDING', 'APPROVED', 'DENIED', 'REVOKED')",
		}),
	}
}

// Policy of the SupportGrant: rows are scoped by internal/authz
// (supportgrant.Table); only a support agent creates one, for themselves,
// and beyond revoking it only the owner (or an admin) changes it.
func (SupportGrant) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(supportgrant.Table)},
		Mutation: privacy.MutationPolicy{
			authz.DenyCreateUnlessSupportAgent(),
			authz.RestrictGrantChanges(),
			authz.FilterScope(supportgrant.Table),
		},
	}
}
