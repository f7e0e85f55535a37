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
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/authz"
)

// Source is the snapshot of one evidence chunk given to an attempt: its
// label (C1…), rank, score, snippet and document title and version, and
// whether the answer cited it. The chunk and document links are cleared if
// those are deleted; the snapshot stays for audit but is shown only while
// the viewer may still read the chunk.
type Source struct{ ent.Schema }

// Mixin of the Source.
func (Source) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, OwnerMixin{}}
}

// Fields of the Source.
func (Source) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("attempt_id", uuid.UUID{}).Immutable(),
		// The chunk and document links, the snippet and the document title
		// are hidden from the generated GraphQL type and where-inputs: the
		// API re-authorises each source at read time and shows them only
		// while the viewer may still read the chunk
		// (resolvers/sources.resolvers.go).
		field.UUID("chunk_id", uuid.UUID{}).Optional().Nillable().
			Annotations(entgql.Skip()),
		field.UUID("document_id", uuid.UUID{}).Optional().Nillable().
			Annotations(entgql.Skip()),
		field.String("label").NotEmpty().MaxLen(16).Immutable(),
		field.Int("rank").Positive().Immutable(),
		field.Float("score").Immutable(),
		field.Text("snippet").Immutable().
			Annotations(entgql.Skip()),
		field.String("document_title").Immutable().MaxLen(500).
			Annotations(entgql.Skip()),
		field.Int("document_version").Immutable(),
		// The cited chunk's content hash when the source was written
		// (internal/contenthash), so that staleness can tell whether the
		// document's current version still contains the cited text; NULL
		// for sources written before hashes whose chunk was gone by the
		// backfill, and for redacted fork copies.
		field.String("chunk_hash").Optional().Nillable().MaxLen(64).Immutable().
			Annotations(entgql.Skip()),
		field.Bool("cited").Default(false).Immutable(),
		// What the evidence came from: a knowledge base document, or an
		// attachment of the conversation (then document_title holds the
		// attachment's file name and attachment_id links it until the
		// attachment is deleted).
		field.Enum("kind").Values("DOCUMENT", "ATTACHMENT").Default("DOCUMENT").Immutable(),
		field.UUID("attachment_id", uuid.UUID{}).Optional().Nillable().
			Annotations(entgql.Skip()),
	}
}

// Edges of the Source.
func (Source) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("attempt", Attempt.Type).Ref("sources").
			Field("attempt_id").Unique().Required().Immutable(),
		edge.To("chunk", Chunk.Type).Field("chunk_id").Unique().
			Annotations(entsql.OnDelete(entsql.SetNull), entgql.Skip()),
		edge.To("document", Document.Type).Field("document_id").Unique().
			Annotations(entsql.OnDelete(entsql.SetNull), entgql.Skip()),
		edge.To("attachment", Attachment.Type).Field("attachment_id").Unique().
			Annotations(entsql.OnDelete(entsql.SetNull), entgql.Skip()),
	}
}

// Indexes of the Source.
func (Source) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("attempt_id", "rank").Unique(),
		index.Fields("chunk_id"),
	}
}

// Annotations of the Source.
func (Source) Annotations() []schema.Annotation {
	return []schema.Annotation{}
}

// Policy of the Source: rows are scoped by internal/authz (source.Table).
func (Source) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(source.Table)},
		Mutation: privacy.MutationPolicy{
			authz.FilterScope(source.Table),
		},
	}
}
