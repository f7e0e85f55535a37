package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/ent/tag"
	"github.com/ragchat/ragchat/internal/authz"
)

// Tag is a label one user puts on their own conversations (docs/API.md,
// "Organising conversations"). Tags are owner-scoped: another user's tag
// is NOT_FOUND, and a support agent reading a conversation through a grant
// sees none of its owner's tags.
type Tag struct{ ent.Schema }

// Mixin of the Tag.
func (Tag) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, TimeMixin{}}
}

// Fields of the Tag.
func (Tag) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").NotEmpty().MaxLen(128).Immutable().
			Comment("The owner: an external identity (JWT subject).").
			Annotations(entgql.Skip()),
		// 64 characters (internal/organise); the column holds their bytes.
		field.String("name").NotEmpty().MaxLen(256).
			Annotations(entgql.OrderField("NAME")),
		field.String("color").Optional().Nillable().MaxLen(32),
	}
}

// Edges of the Tag.
func (Tag) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("conversations", Conversation.Type).Ref("tags").
			Through("conversation_tags", ConversationTag.Type).
			Annotations(entgql.Skip()),
	}
}

// Indexes of the Tag.
func (Tag) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "user_id", "name").Unique(),
	}
}

// Annotations of the Tag.
func (Tag) Annotations() []schema.Annotation {
	return []schema.Annotation{}
}

// Policy of the Tag: rows are scoped by internal/authz (tag.Table).
func (Tag) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{authz.FilterScope(tag.Table)},
		Mutation: privacy.MutationPolicy{authz.FilterScope(tag.Table)},
	}
}
