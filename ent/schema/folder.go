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

	"github.com/ragchat/ragchat/ent/folder"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
)

// Folder groups one user's conversations (docs/API.md, "Organising
// conversations"). Folders nest (parent_id) and are ordered among their
// siblings by position; a conversation is in at most one folder, and
// deleting a folder leaves its conversations unfiled.
type Folder struct{ ent.Schema }

// Mixin of the Folder.
func (Folder) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, TimeMixin{}}
}

// Fields of the Folder.
func (Folder) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").NotEmpty().MaxLen(128).Immutable().
			Comment("The owner: an external identity (JWT subject).").
			Annotations(entgql.Skip()),
		// 100 characters (internal/organise); the column holds their bytes.
		field.String("name").NotEmpty().MaxLen(400).
			Annotations(entgql.OrderField("NAME")),
		field.UUID("parent_id", uuid.UUID{}).Optional().Nillable().
			Comment("The folder this one is in; null at the top level."),
		field.Int("position").Default(0).
			Comment("The order among the folders with the same parent, ascending.").
			Annotations(entgql.OrderField("POSITION")),
	}
}

// Edges of the Folder.
func (Folder) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("children", Folder.Type).
			From("parent").Field("parent_id").Unique().
			Annotations(entsql.OnDelete(entsql.SetNull), entgql.Skip()),
		edge.To("conversations", Conversation.Type).
			Annotations(entsql.OnDelete(entsql.SetNull), entgql.Skip()),
	}
}

// Indexes of the Folder.
func (Folder) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "user_id", "parent_id", "position"),
	}
}

// Annotations of the Folder.
func (Folder) Annotations() []schema.Annotation {
	return []schema.Annotation{}
}

// Policy of the Folder: rows are scoped by internal/authz (folder.Table).
func (Folder) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{authz.FilterScope(folder.Table)},
		Mutation: privacy.MutationPolicy{authz.FilterScope(folder.Table)},
	}
}
