package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/ragchat/ragchat/ent/knowledgebase"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
)

// KnowledgeBase is a named collection of documents searched together. It
// records the embedding model its chunks were embedded with.
type KnowledgeBase struct{ ent.Schema }

// Mixin of the KnowledgeBase.
func (KnowledgeBase) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, TimeMixin{}}
}

// Fields of the KnowledgeBase.
func (KnowledgeBase) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty().MaxLen(200).
			Annotations(entgql.OrderField("NAME")),
		field.Text("description").Default(""),
		field.String("embedding_model").NotEmpty().MaxLen(128),
		field.Int("embedding_dimensions").Positive(),
	}
}

// Edges of the KnowledgeBase.
func (KnowledgeBase) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("documents", Document.Type).
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.RelayConnection()),
		edge.To("chunks", Chunk.Type).
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.Skip()),
		edge.To("conversations", Conversation.Type).
			Annotations(entgql.Skip()),
	}
}

// Indexes of the KnowledgeBase.
func (KnowledgeBase) Indexes() []ent.Index {
	return []ent.Index{index.Fields("tenant_id", "name").Unique()}
}

// Annotations of the KnowledgeBase.
func (KnowledgeBase) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.RelayConnection(),
		entgql.QueryField("knowledgeBases"),
	}
}

// Policy of the KnowledgeBase: rows are scoped by internal/authz (knowledgebase.Table).
func (KnowledgeBase) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(knowledgebase.Table)},
		Mutation: privacy.MutationPolicy{
			authz.DenyIfNotCurator(),
			authz.FilterScope(knowledgebase.Table),
		},
	}
}
