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
	"github.com/ragchat/ragchat/ent/conversation"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
)

// Conversation is the aggregate root of a chat: it belongs to one user of
// one tenant, searches one knowledge base, and carries the rolling summary,
// the sequence counter, the optimistic version and the expiry.
type Conversation struct{ ent.Schema }

// Mixin of the Conversation.
func (Conversation) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, TimeMixin{}}
}

// Fields of the Conversation.
func (Conversation) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").NotEmpty().MaxLen(128).Immutable().
			Comment("The owner: an external identity (JWT subject)."),
		field.UUID("knowledge_base_id", uuid.UUID{}).Immutable(),
		field.String("title").Default("").MaxLen(255).
			Annotations(entgql.OrderField("TITLE")),
		field.Enum("title_source").Values("QUESTION", "GENERATED", "USER").Default("QUESTION").
			Comment("Where the title came from; a generated title never replaces a user's."),
		field.Text("summary").Default("").
			Annotations(entgql.Skip(entgql.SkipWhereInput | entgql.SkipOrderField)),
		field.Int64("summary_message_sequence").Default(0).NonNegative().
			Comment("The last message sequence_no the summary covers."),
		field.Int("summary_version").Default(0).NonNegative(),
		// Conversation.status is declared in schema/conversations.graphqls
		// instead of generated: it is computed (EXPIRED once the expiry has
		// passed, internal/authz/status.go) from columns field collection
		// must then load too; the where-input predicates stay generated and
		// are rewritten onto the computed status (resolvers/conversationstatus.go).
		field.Enum("status").Values("ACTIVE", "ARCHIVED", "DELETED", "EXPIRED").Default("ACTIVE").
			Comment("ACTIVE, ARCHIVED or DELETED as stored; EXPIRED is computed on read, never stored.").
			Annotations(entgql.Skip(entgql.SkipType)),
		field.Int("version").Default(0).NonNegative().
			Comment("Optimistic concurrency version, bumped on every change."),
		field.Int64("last_sequence_no").Default(0).NonNegative(),
		field.Time("expires_at").
			Comment("Sliding expiry, extended by each valid interaction.").
			Annotations(entgql.OrderField("EXPIRES_AT")),
		field.Time("absolute_expires_at").Immutable().
			Comment("Hard cap on the conversation's life."),
		field.Time("deleted_at").Optional().Nillable(),
		field.UUID("current_leaf_id", uuid.UUID{}).Optional().Nillable().
			Comment("The last message of the current branch (docs/ENGINE.md, \"Message trees\"); null until the first message.").
			Annotations(entgql.Skip(entgql.SkipWhereInput | entgql.SkipOrderField)),
		field.UUID("forked_from_message_id", uuid.UUID{}).Optional().Nillable().Immutable().
			Comment("For a fork: the message of the source conversation whose path it copies.").
			Annotations(entgql.Skip(entgql.SkipWhereInput | entgql.SkipOrderField)),
		field.String("fork_request_id").Optional().Nillable().MaxLen(128).Immutable().
			Comment("The idempotency key of the forkConversation that made it.").
			Annotations(entgql.Skip(entgql.SkipAll)),
		field.String("history_strategy").GoType(domain.HistoryStrategy("")).
			Optional().Nillable().
			Comment("The conversation's own history strategy (SLIDING_WINDOW, SEMANTIC_SUMMARY, HYBRID or PRIORITIZED); " +
				"null follows the tenant's (TenantSettings.historyStrategy).").
			Annotations(entgql.Skip(entgql.SkipWhereInput | entgql.SkipOrderField)),
		field.Time("pinned_at").Optional().Nillable().
			Comment("When the owner pinned the conversation; null when it is not pinned.").
			Annotations(entgql.Skip(entgql.SkipWhereInput | entgql.SkipOrderField)),
		field.UUID("folder_id", uuid.UUID{}).Optional().Nillable().
			Comment("The owner's folder the conversation is filed in; null when unfiled."),
		field.JSON("metadata", map[string]string{}).Optional().
			Comment("An integrator's key-value pairs: at most 16 keys of up to 64 characters, values of up to 512 (docs/API.md, \"Conversation metadata\").").
			Annotations(entgql.Skip()),
		field.UUID("model_profile_id", uuid.UUID{}).Optional().Nillable().
			Comment("The conversation's model profile (docs/API.md, \"Model profiles\"); null follows the tenant default.").
			Annotations(entgql.Skip()),
		field.JSON("model_parameters", domain.ModelParameters{}).Optional().
			Comment("The conversation's own sampling parameters; unset ones come from the profile.").
			Annotations(entgql.Skip()),
		field.Time("temporary_expires_at").Optional().Nillable().
			Comment("For a temporary chat: when it is gone (docs/API.md, \"Temporary chats\"); null for a normal conversation.").
			Annotations(entgql.Skip(entgql.SkipWhereInput | entgql.SkipOrderField)),
	}
}

// Edges of the Conversation.
func (Conversation) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("knowledge_base", KnowledgeBase.Type).Ref("conversations").
			Field("knowledge_base_id").Unique().Required().Immutable(),
		// Conversation.messages is declared in schema/conversations.graphqls
		// instead of generated, so that it pages by sequence_no by default
		// (resolvers/conversations.resolvers.go); the where-input predicates stay
		// generated.
		edge.To("messages", Message.Type).
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.RelayConnection(),
				entgql.Skip(entgql.SkipType)),
		edge.To("attempts", Attempt.Type).
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.RelayConnection()),
		edge.From("folder", Folder.Type).Ref("conversations").
			Field("folder_id").Unique(),
		edge.To("tags", Tag.Type).
			Through("conversation_tags", ConversationTag.Type),
	}
}

// Indexes of the Conversation.
func (Conversation) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "user_id", "status", "updated_at"),
		index.Fields("tenant_id", "created_at"),
		index.Fields("status", "deleted_at"),
		index.Fields("tenant_id", "user_id", "fork_request_id").Unique(),
		index.Fields("tenant_id", "user_id", "folder_id"),
		index.Fields("temporary_expires_at"),
	}
}

// Annotations of the Conversation.
func (Conversation) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.RelayConnection(),
		entgql.QueryField("conversations"),
	}
}

// Policy of the Conversation: rows are scoped by internal/authz (conversation.Table).
func (Conversation) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(conversation.Table)},
		Mutation: privacy.MutationPolicy{
			authz.FilterScope(conversation.Table),
		},
	}
}
