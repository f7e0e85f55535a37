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

	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
)

// Attachment is a file uploaded into one conversation by its owner
// (internal/attachment/README.md). It is bound to that conversation for
// good: conversation_id and owner_id are immutable. The bytes live in the
// blob store under blob_key, which is never exposed through the API.
type Attachment struct{ ent.Schema }

// Mixin of the Attachment.
func (Attachment) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, OwnerMixin{}, TimeMixin{}}
}

// Fields of the Attachment.
func (Attachment) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("conversation_id", uuid.UUID{}).Immutable(),
		field.String("name").NotEmpty().MaxLen(255).Immutable().
			Comment("The file name the client gave; informational only, never used to decide the type."),
		field.String("media_type").NotEmpty().MaxLen(128).Immutable().
			Comment("The media type sniffed from the bytes (text/plain, text/markdown, application/pdf or the DOCX type)."),
		field.Int64("size").NonNegative().Immutable(),
		field.String("sha256").NotEmpty().MaxLen(64).Immutable().
			Comment("The hex SHA-256 of the bytes."),
		field.String("blob_key").NotEmpty().MaxLen(512).Immutable().
			Comment("The blob store key of the bytes; never exposed.").
			Annotations(entgql.Skip(entgql.SkipAll)),
		field.Enum("status").Values("UPLOADED", "SCANNING", "CHUNKING", "READY", "FAILED").Default("UPLOADED"),
		field.String("failure_code").Optional().Nillable().MaxLen(64).
			Comment("Why the attachment FAILED: INFECTED, SCANNER_UNAVAILABLE, NO_TEXT, TOO_MANY_PAGES, PROCESSING_FAILED, PROCESSING_TIMEOUT or PROCESSING_INTERRUPTED."),
		field.Int("attempts").NonNegative().Default(0).
			Comment("How many times processing has started; the fencing token of the processing lease (internal/attachment/lease.go).").
			Annotations(entgql.Skip(entgql.SkipAll)),
		field.Time("lease_until").Optional().Nillable().
			Comment("Until when the instance that queued or processes the attachment holds it; past it any instance takes it over (internal/attachment/recover.go).").
			Annotations(entgql.Skip(entgql.SkipAll)),
	}
}

// Edges of the Attachment.
func (Attachment) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("conversation", Conversation.Type).Field("conversation_id").
			Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.Skip()),
	}
}

// Indexes of the Attachment.
func (Attachment) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("conversation_id", "created_at"),
		// The recovery of attachments whose processing lease expired.
		index.Fields("status", "lease_until"),
	}
}

// Annotations of the Attachment.
func (Attachment) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.Skip(entgql.SkipWhereInput | entgql.SkipOrderField | entgql.SkipMutationCreateInput | entgql.SkipMutationUpdateInput),
		entsql.Checks(map[string]string{
			"attachment_status_check": "status IN ('UPLOADED', 'SCANNING', 'CHUNKING', 'READY', 'FAILED')",
		}),
	}
}

// Policy of the Attachment: rows are scoped by internal/authz
// (attachment.Table): the conversation's owner, admins of the tenant, and
// a support agent only under an active grant for the conversation (reads).
func (Attachment) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{authz.FilterScope(attachment.Table)},
		Mutation: privacy.MutationPolicy{authz.FilterScope(attachment.Table)},
	}
}
