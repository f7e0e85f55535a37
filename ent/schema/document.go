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
	"github.com/ragchat/ragchat/ent/document"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
)

// Document is one source file of a knowledge base. Its access list
// (visibility plus grants) is checked on every use of its chunks: retrieval,
// history re-authorisation and citation display.
type Document struct{ ent.Schema }

// Mixin of the Document.
func (Document) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, TimeMixin{}}
}

// Fields of the Document.
func (Document) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("knowledge_base_id", uuid.UUID{}).Immutable(),
		field.String("title").NotEmpty().MaxLen(500).
			Annotations(entgql.OrderField("TITLE")),
		field.String("source_uri").Default("").MaxLen(2000),
		field.Int("version").Default(1).Positive(),
		field.String("checksum").Default("").MaxLen(128),
		field.Enum("status").Values("PROCESSING", "READY", "FAILED").Default("PROCESSING"),
		field.Enum("visibility").Values("TENANT", "RESTRICTED").Default("TENANT").
			Comment("TENANT: every viewer of the tenant; RESTRICTED: only the grants."),
	}
}

// Edges of the Document.
func (Document) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("knowledge_base", KnowledgeBase.Type).Ref("documents").
			Field("knowledge_base_id").Unique().Required().Immutable(),
		edge.To("chunks", Chunk.Type).
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.Skip()),
		edge.To("grants", DocumentGrant.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Document.
func (Document) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("knowledge_base_id", "title"),
		index.Fields("tenant_id", "visibility"),
	}
}

// Annotations of the Document.
func (Document) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}

// Policy of the Document: rows are scoped by internal/authz (document.Table).
func (Document) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(document.Table)},
		Mutation: privacy.MutationPolicy{
			authz.DenyIfNotCurator(),
			authz.FilterScope(document.Table),
		},
	}
}
