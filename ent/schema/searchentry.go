package schema

import (
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/ent/searchentry"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/textsearch"
)

// SearchEntry is one searchable text of a conversation in the conversation
// search index (internal/convsearch, docs/ENGINE.md "Conversation
// search"): a message's content (kind MESSAGE) or the conversation's title
// (kind TITLE, one per conversation). An Ent hook that the store installs
// where it opens the client writes it in the transaction of the message or
// title it mirrors, so a text is searchable once that commits; the
// conversation's purge deletes it (ON DELETE CASCADE). It lives in a table
// of its own so that reads of messages and conversations never carry the
// tokens, and so that its GIN index (on PostgreSQL; an FTS5 table fed by
// triggers on SQLite) is the only index that can answer a search: the
// owner and tenant are terms of the tokens, not a B-tree, so a user with
// many conversations is still found by the rarest term's posting list.
type SearchEntry struct{ ent.Schema }

// Mixin of the SearchEntry.
func (SearchEntry) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}}
}

// Fields of the SearchEntry.
func (SearchEntry) Fields() []ent.Field {
	return []ent.Field{
		field.String("owner_id").NotEmpty().Immutable().MaxLen(128).
			Comment("The conversation's owner (as OwnerMixin, without its B-tree: see the type's comment)."),
		field.UUID("conversation_id", uuid.UUID{}).Immutable(),
		field.UUID("message_id", uuid.UUID{}).Optional().Nillable().Immutable().
			Comment("The message of a MESSAGE entry; null for the TITLE entry."),
		field.Enum("kind").Values("TITLE", "MESSAGE").Immutable(),
		field.Time("at").Default(time.Now).
			Comment("When the text was written: the message's creation, the title's last change."),
		field.Int64("rank").
			Comment("The order of hits, best first: the kind's tier (TITLE 2, MESSAGE 1) × 10^16 + at in Unix microseconds."),
		field.Other("search_tokens", textsearch.Indexed("")).
			SchemaType(map[string]string{dialect.Postgres: "tsvector", dialect.SQLite: "text"}).
			Sensitive().
			Comment("The text's search terms plus the owner's and the tenant's terms (internal/convsearch)."),
	}
}

// Edges of the SearchEntry.
func (SearchEntry) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("conversation", Conversation.Type).Field("conversation_id").
			Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the SearchEntry.
func (SearchEntry) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("conversation_id", "kind"),
		index.Fields("message_id").Unique(),
		index.Fields("search_tokens").StorageKey("search_entries_search_tokens_gin").
			Annotations(entsql.IndexTypes(map[string]string{dialect.Postgres: "GIN"})),
	}
}

// Annotations of the SearchEntry.
func (SearchEntry) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(), PreparedCreate{}}
}

// Policy of the SearchEntry: rows are scoped by internal/authz
// (searchentry.Table) like the messages they mirror. Only the index hook
// writes them, after the write of the row they mirror passed its policy.
func (SearchEntry) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(searchentry.Table)},
		Mutation: privacy.MutationPolicy{
			authz.FilterScope(searchentry.Table),
		},
	}
}
