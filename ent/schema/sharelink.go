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

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/ent/sharelink"
	"github.com/ragchat/ragchat/internal/authz"
)

// ShareLink is a read-only link to one conversation's path from its root
// up to one message, frozen when the link is made (docs/API.md, "Share
// links"). The database keeps only the SHA-256 of the link's token; the
// token itself is shown once, by createShareLink. Reading a link
// (internal/sharing) re-authorises every cited source for the reader.
type ShareLink struct{ ent.Schema }

// Mixin of the ShareLink.
func (ShareLink) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}}
}

// Fields of the ShareLink.
func (ShareLink) Fields() []ent.Field {
	return []ent.Field{
		field.String("owner_id").NotEmpty().MaxLen(128).Immutable().
			Comment("The user who made the link: the conversation's owner.").
			Annotations(entgql.Skip()),
		field.UUID("conversation_id", uuid.UUID{}).Immutable(),
		field.UUID("up_to_message_id", uuid.UUID{}).Immutable().
			Comment("The last message the link shows."),
		field.JSON("path_message_ids", []uuid.UUID{}).Immutable().
			Comment("The messages of the path from the root to up_to_message_id, in order, as they were at creation.").
			Annotations(entgql.Skip()),
		field.Enum("audience").Values("TENANT", "USERS", "PUBLIC").
			Comment("Who may read: any viewer of the tenant, the listed users, or anyone with the token."),
		field.JSON("users", []string{}).Optional().
			Comment("For USERS: the user ids (JWT subjects) who may read."),
		field.Time("expires_at").Optional().Nillable().
			Comment("When the link stops working; null: never."),
		field.Time("revoked_at").Optional().Nillable(),
		field.String("token_hash").NotEmpty().MaxLen(64).Immutable().Unique().Sensitive().
			Comment("The hex SHA-256 of the token.").
			Annotations(entgql.Skip()),
		field.JSON("included_attempt_ids", []uuid.UUID{}).Optional().
			Comment("The answers (attempt ids) on the path that cite a source some reader of the audience may not read, which the owner was shown and chose to show anyway, as they were restricted at that choice. Every other restricted answer is withheld from a reader who may not read its sources.").
			Annotations(entgql.Skip()),
		field.Time("restricted_answers_chosen_at").Optional().Nillable().
			Comment("When the owner last chose which restricted answers to show; null: never (links made before the choice existed included), so none is shown."),
		field.Int64("read_count").Default(0).NonNegative().
			Comment("How many times the link was read (one UPDATE per read, never a row)."),
		field.Time("last_read_at").Optional().Nillable(),
		field.Time("created_at").Default(time.Now).Immutable().
			Annotations(entgql.OrderField("CREATED_AT")),
		field.Time("updated_at").Default(time.Now).
			Comment("When the owner last changed the link (reads do not change it)."),
	}
}

// Edges of the ShareLink.
func (ShareLink) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("conversation", Conversation.Type).Field("conversation_id").
			Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.Skip()),
	}
}

// Indexes of the ShareLink.
func (ShareLink) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "owner_id", "created_at"),
		index.Fields("conversation_id"),
	}
}

// Annotations of the ShareLink.
func (ShareLink) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.RelayConnection(),
		entsql.Checks(map[string]string{
			"share_link_audience_check": "audience IN ('TENANT', 'USERS', 'PUBLIC')",
		}),
	}
}

// Policy of the ShareLink: only its owner sees or changes it, admins
// included (authz, sharelink.Table); the token read path
// (internal/sharing) looks a link up by its hash under its own system job.
func (ShareLink) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{authz.FilterScope(sharelink.Table)},
		Mutation: privacy.MutationPolicy{authz.FilterScope(sharelink.Table)},
	}
}
