package schema

import (
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// Message is one USER, ASSISTANT or SYSTEM turn of a conversation. Its
// sequence number is strict and gap-free per conversation (creation order);
// its place in the conversation's message tree (docs/ENGINE.md, "Message
// trees") is its parent and its depth: a USER message's parent is the
// answer (or unanswered question) it follows, an ASSISTANT message's parent
// is the USER message it answers, and a root has none.
type Message struct{ ent.Schema }

// Mixin of the Message.
func (Message) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, OwnerMixin{}}
}

// Fields of the Message.
func (Message) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("conversation_id", uuid.UUID{}).Immutable(),
		field.UUID("parent_id", uuid.UUID{}).Optional().Nillable().Immutable().
			Comment("The message this one follows on its path; null for a root."),
		field.Int("depth").Default(0).NonNegative().Immutable().
			Comment("The number of ancestors: the message's position in its path, from the root (0)."),
		field.UUID("edited_from_id", uuid.UUID{}).Optional().Nillable().Immutable().
			Comment("For an edited USER message: the question it is an edit of (a sibling)."),
		field.Int64("sequence_no").Positive().Immutable().
			Annotations(entgql.OrderField("SEQUENCE_NO")),
		field.Enum("role").Values("USER", "ASSISTANT", "SYSTEM").Immutable(),
		field.Text("content").Immutable(),
		field.Text("standalone_question").Optional().Nillable(),
		field.UUID("attempt_id", uuid.UUID{}).Optional().Nillable().
			Comment("For ASSISTANT messages: the attempt that produced it."),
		field.String("client_message_id").Optional().Nillable().MaxLen(128).Immutable(),
		field.String("model").Optional().Nillable().MaxLen(128),
		field.Int("prompt_tokens").Optional().Nillable(),
		field.Int("completion_tokens").Optional().Nillable(),
		field.String("trace_id").Optional().Nillable().MaxLen(64),
		field.Text("path_summary").Optional().Nillable().
			Comment("The rolling summary of the path from the root up to and including this message, " +
				"for the turns below it (docs/ENGINE.md, \"Summaries on a tree\").").
			Annotations(entgql.Skip(entgql.SkipAll)),
		field.Int("path_summary_version").Default(0).NonNegative().
			Comment("Bumped on every write of path_summary (the summariser's optimistic lock).").
			Annotations(entgql.Skip(entgql.SkipAll)),
		field.JSON("attachment_ids", []uuid.UUID{}).Optional().Immutable().
			Comment("For a USER message: the attachments of its conversation the question was asked with " +
				"(docs/ENGINE.md, \"Attachments on an ask\"); read back through the attachments' own policy.").
			Annotations(entgql.Skip(entgql.SkipAll)),
		field.Time("created_at").Default(time.Now).Immutable().
			Annotations(entgql.OrderField("CREATED_AT")),
	}
}

// Edges of the Message.
func (Message) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("conversation", Conversation.Type).Ref("messages").
			Field("conversation_id").Unique().Required().Immutable(),
		edge.From("attempt", Attempt.Type).Ref("assistant_message").
			Field("attempt_id").Unique(),
		edge.To("attempts", Attempt.Type).
			Comment("For USER messages: every attempt to answer it, retries included.").
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Message.
func (Message) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("conversation_id", "sequence_no").Unique(),
		index.Fields("conversation_id", "client_message_id").Unique(),
		index.Fields("parent_id", "sequence_no"),
	}
}

// Annotations of the Message.
func (Message) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.RelayConnection(),
		PreparedCreate{},
		entsql.Checks(map[string]string{
			"message_role_check": "role IN ('USER', 'ASSISTANT', 'SYSTEM')",
		}),
	}
}

// Policy of the Message: rows are scoped by internal/authz (message.Table).
func (Message) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(message.Table)},
		Mutation: privacy.MutationPolicy{
			authz.FilterScope(message.Table),
		},
	}
}
