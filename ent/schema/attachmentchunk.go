package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
	"github.com/pgvector/pgvector-go"

	"github.com/ragchat/ragchat/ent/attachmentchunk"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
)

// AttachmentChunk is a retrievable piece of a READY attachment's extracted
// text with its embedding (internal/attachment/README.md). It is a table of
// its own rather than nullable columns on Chunk: a knowledge chunk's
// visibility is its document's ACL, an attachment chunk's is its
// conversation's (owner_id copies the conversation's owner, a support
// agent reads it only under a grant), so the two privacy scopes never mix
// and the knowledge base search cannot reach an attachment chunk at all.
// Its rows go with the attachment (ON DELETE CASCADE), which goes with
// its conversation.
type AttachmentChunk struct{ ent.Schema }

// Mixin of the AttachmentChunk.
func (AttachmentChunk) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, OwnerMixin{}}
}

// Fields of the AttachmentChunk.
func (AttachmentChunk) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("attachment_id", uuid.UUID{}).Immutable(),
		field.UUID("conversation_id", uuid.UUID{}).Immutable(),
		field.Int("ordinal").NonNegative().Immutable(),
		field.Text("content").NotEmpty().Immutable(),
		field.Int("token_count").NonNegative().Immutable(),
		field.Other("embedding", pgvector.Vector{}).
			SchemaType(map[string]string{
				dialect.Postgres: "vector(1024)",
				dialect.SQLite:   "text",
			}).Immutable(),
	}
}

// Edges of the AttachmentChunk.
func (AttachmentChunk) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("attachment", Attachment.Type).Field("attachment_id").
			Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the AttachmentChunk: a conversation's attachments hold few
// chunks, so a search scans them exactly (no vector index).
func (AttachmentChunk) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("attachment_id", "ordinal").Unique(),
		index.Fields("conversation_id"),
	}
}

// Annotations of the AttachmentChunk.
func (AttachmentChunk) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// Policy of the AttachmentChunk: rows are scoped by internal/authz
// (attachmentchunk.Table) exactly like their attachment.
func (AttachmentChunk) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{authz.FilterScope(attachmentchunk.Table)},
		Mutation: privacy.MutationPolicy{authz.FilterScope(attachmentchunk.Table)},
	}
}
