package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
	"github.com/ragchat/ragchat/ent/documentgrant"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
)

// DocumentGrant lets one user or one group read a RESTRICTED document.
type DocumentGrant struct{ ent.Schema }

// Mixin of the DocumentGrant.
func (DocumentGrant) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}}
}

// Fields of the DocumentGrant.
func (DocumentGrant) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("document_id", uuid.UUID{}).Immutable(),
		field.Enum("principal_kind").Values("USER", "GROUP").Immutable(),
		field.String("principal").NotEmpty().MaxLen(128).Immutable(),
	}
}

// Edges of the DocumentGrant.
func (DocumentGrant) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("document", Document.Type).Ref("grants").
			Field("document_id").Unique().Required().Immutable(),
	}
}

// Indexes of the DocumentGrant.
func (DocumentGrant) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("document_id", "principal_kind", "principal").Unique(),
		index.Fields("tenant_id", "principal_kind", "principal"),
	}
}

// Annotations of the DocumentGrant.
func (DocumentGrant) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// Policy of the DocumentGrant: rows are scoped by internal/authz (documentgrant.Table).
func (DocumentGrant) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(documentgrant.Table)},
		Mutation: privacy.MutationPolicy{
			authz.DenyIfNotCurator(),
			authz.FilterScope(documentgrant.Table),
		},
	}
}
