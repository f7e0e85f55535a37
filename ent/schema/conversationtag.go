package schema

import (
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/conversationtag"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
)

// ConversationTag applies one Tag to one Conversation: the edge schema of
// Conversation.tags. owner_id copies the conversation's owner, who is also
// the tag's, so that rows are scoped without a join.
type ConversationTag struct{ ent.Schema }

// Mixin of the ConversationTag.
func (ConversationTag) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, OwnerMixin{}}
}

// Fields of the ConversationTag.
func (ConversationTag) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("conversation_id", uuid.UUID{}).Immutable(),
		field.UUID("tag_id", uuid.UUID{}).Immutable(),
		field.Time("created_at").Default(time.Now).Immutable(),
	}
}

// Edges of the ConversationTag.
func (ConversationTag) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("conversation", Conversation.Type).Field("conversation_id").
			Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("tag", Tag.Type).Field("tag_id").
			Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the ConversationTag.
func (ConversationTag) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("conversation_id", "tag_id").Unique(),
		index.Fields("tag_id"),
	}
}

// Annotations of the ConversationTag.
func (ConversationTag) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip()}
}

// Policy of the ConversationTag: rows are scoped by internal/authz
// (conversationtag.Table), and a new row needs the viewer's own tag and
// conversation (authz.DenyConversationTagOutsideViewer).
func (ConversationTag) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(conversationtag.Table)},
		Mutation: privacy.MutationPolicy{
			authz.DenyConversationTagOutsideViewer(),
			authz.FilterScope(conversationtag.Table),
		},
	}
}
