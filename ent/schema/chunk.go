package schema

import (
	"context"
	"errors"

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
	gen "github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/hook"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/contenthash"
)

// Chunk is a retrievable piece of a document with its embedding. On
// PostgreSQL the embedding is a pgvector vector(1024) with an HNSW cosine
// index; on SQLite it is stored as text and searched in Go.
type Chunk struct{ ent.Schema }

// Mixin of the Chunk.
func (Chunk) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}}
}

// Fields of the Chunk.
func (Chunk) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("document_id", uuid.UUID{}).Immutable(),
		field.UUID("knowledge_base_id", uuid.UUID{}).Immutable(),
		field.Int("ordinal").NonNegative().Immutable(),
		field.Text("content").NotEmpty(),
		// The SHA-256 hex of content, set by the chunk's hook whenever
		// content is written (never by callers); NULL only on SQLite rows
		// written before the column existed and not yet backfilled
		// (internal/store.MigrateSQLite).
		field.String("content_hash").Optional().Nillable().MaxLen(64),
		field.Int("token_count").NonNegative(),
		field.Other("embedding", pgvector.Vector{}).
			SchemaType(map[string]string{
				dialect.Postgres: "vector(1024)",
				dialect.SQLite:   "text",
			}),
	}
}

// Edges of the Chunk.
func (Chunk) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("document", Document.Type).Ref("chunks").
			Field("document_id").Unique().Required().Immutable(),
		edge.From("knowledge_base", KnowledgeBase.Type).Ref("chunks").
			Field("knowledge_base_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Chunk.
func (Chunk) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("document_id", "ordinal").Unique(),
		index.Fields("knowledge_base_id"),
		index.Fields("document_id", "content_hash"),
		index.Fields("embedding").
			StorageKey("chunks_embedding_hnsw").
			Annotations(
				entsql.IndexTypes(map[string]string{dialect.Postgres: "hnsw"}),
				entsql.OpClass("vector_cosine_ops"),
			),
	}
}

// Hooks of the Chunk.
func (Chunk) Hooks() []ent.Hook {
	return []ent.Hook{hook.On(setContentHash, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne)}
}

// errContentHashByCaller refuses a mutation that sets content_hash
// without content: the hash is derived, never written on its own.
var errContentHashByCaller = errors.New("chunk: content_hash is set from content, not by callers")

// setContentHash sets content_hash from content on every mutation that
// writes content.
func setContentHash(next ent.Mutator) ent.Mutator {
	return hook.ChunkFunc(func(ctx context.Context, m *gen.ChunkMutation) (ent.Value, error) {
		content, ok := m.Content()
		if !ok {
			if _, set := m.ContentHash(); set || m.ContentHashCleared() {
				return nil, errContentHashByCaller
			}
			return next.Mutate(ctx, m)
		}
		m.SetContentHash(contenthash.Of(content))
		return next.Mutate(ctx, m)
	})
}

// Annotations of the Chunk.
func (Chunk) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// Policy of the Chunk: rows are scoped by internal/authz (chunk.Table).
func (Chunk) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(chunk.Table)},
		Mutation: privacy.MutationPolicy{
			authz.DenyIfNotCurator(),
			authz.FilterScope(chunk.Table),
		},
	}
}
