package schema

import (
	"github.com/ragchat/ragchat/ent/auditevent"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
)

// AuditEvent records a sensitive action: deletes, purges, restores, ACL
// changes and an admin reading another user's conversation. It is
// append-only; only the purge job removes events past retention.
type AuditEvent struct{ ent.Schema }

// Mixin of the AuditEvent.
func (AuditEvent) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}}
}

// Fields of the AuditEvent.
func (AuditEvent) Fields() []ent.Field {
	return []ent.Field{
		field.String("actor").NotEmpty().MaxLen(128).Immutable(),
		field.String("action").NotEmpty().MaxLen(64).Immutable(),
		field.String("target_type").NotEmpty().MaxLen(64).Immutable(),
		field.String("target_id").NotEmpty().MaxLen(128).Immutable(),
		field.Text("reason").Default("").Immutable(),
		field.JSON("metadata", map[string]string{}).Optional().Immutable().
			Annotations(entgql.Skip()),
		field.Time("at").Default(time.Now).Immutable().
			Annotations(entgql.OrderField("AT")),
	}
}

// Indexes of the AuditEvent.
func (AuditEvent) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "at"),
		index.Fields("tenant_id", "target_type", "target_id"),
	}
}

// Annotations of the AuditEvent.
func (AuditEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.RelayConnection(),
		entgql.QueryField("auditEvents").Description(
			"Admins only (FORBIDDEN otherwise, as a whole field): the tenant's audit events, newest first by default.",
		),
	}
}

// Policy of the AuditEvent: rows are scoped by internal/authz (auditevent.Table).
func (AuditEvent) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(auditevent.Table)},
		Mutation: privacy.MutationPolicy{
			authz.DenyUnlessCreate(),
		},
	}
}
