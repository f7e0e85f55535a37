package knowledge

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/store"
)

// Retriever finds the chunks of a knowledge base nearest to a query
// embedding among those the viewer in ctx may read: tenant, document ACL
// and knowledge base filters come from the Ent privacy policies, so a
// member never receives a chunk of a document they may not read. Only
// chunks of READY documents are returned. It is safe for concurrent use.
//
// On PostgreSQL it uses the pgvector HNSW index (see searchPostgres). On
// SQLite it scores every readable chunk of the knowledge base in Go (see
// searchSQLite), which takes time linear in the knowledge base's size:
// fine for the demo and a few thousand chunks, not for large corpora (use
// PostgreSQL).
type Retriever struct {
	db   *store.DB
	opts RetrieverOptions

	// pgvector capabilities, detected on first use (PostgreSQL).
	capsMu sync.Mutex
	caps   *pgCaps

	// parsed embeddings (SQLite).
	vectors vectorCache

	// test hooks (see export_test.go).
	plannerHints []string
	noFallback   bool
	onFallback   func()
}

var _ chat.Retriever = (*Retriever)(nil)

// NewRetriever returns a Retriever over db.
func NewRetriever(db *store.DB, opts RetrieverOptions) *Retriever {
	opts = opts.withDefaults()
	return &Retriever{db: db, opts: opts, vectors: vectorCache{max: opts.SQLiteCacheVectors}}
}

// Search returns the k chunks of the knowledge base most similar to query
// (cosine similarity, best first) that the viewer may read now; fewer only
// when fewer exist. query must be a domain.EmbeddingDimensions vector. A
// knowledge base the viewer cannot see yields no hits.
func (r *Retriever) Search(ctx context.Context, knowledgeBaseID uuid.UUID, query []float32, k int) ([]chat.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	if k > r.opts.MaxK {
		return nil, domain.Errorf(domain.CodeBadUserInput, "at most %d chunks can be retrieved at once, asked for %d", r.opts.MaxK, k)
	}
	if err := checkVector(query); err != nil {
		return nil, fmt.Errorf("knowledge: query embedding: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, store.DomainError(err, "knowledge base")
	}
	var (
		hits []chat.Hit
		err  error
	)
	if r.db.Dialect == dialect.Postgres {
		hits, err = r.searchPostgres(ctx, knowledgeBaseID, query, k)
	} else {
		hits, err = r.searchSQLite(ctx, knowledgeBaseID, query, k)
	}
	if err != nil {
		return nil, store.DomainError(err, "knowledge base")
	}
	return hits, nil
}

// readableChunks returns the chunk query of a knowledge base limited to
// READY documents; privacy adds the tenant and ACL predicates when it runs.
func readableChunks(client *ent.Client, kbID uuid.UUID) *ent.ChunkQuery {
	return client.Chunk.Query().Where(
		chunk.KnowledgeBaseID(kbID),
		chunk.HasDocumentWith(document.StatusEQ(document.StatusREADY)),
	)
}

// hitChunks is readableChunks for a query that joins the hit documents
// (joinHitDocuments): the join already demands a READY document the viewer
// may read, so the query leaves out readableChunks' EXISTS over documents,
// which would state the document ACL once more (docs/ENGINE.md, "Privacy
// SQL, composed once"). Privacy still adds the chunks' own visibility.
func hitChunks(client *ent.Client, kbID uuid.UUID) *ent.ChunkQuery {
	return client.Chunk.Query().Where(chunk.KnowledgeBaseID(kbID))
}

// sortHits orders hits by score, best first, then by chunk id.
func sortHits(hits []chat.Hit) {
	slices.SortFunc(hits, func(a, b chat.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return slices.Compare(a.Chunk.ID[:], b.Chunk.ID[:])
	})
}

// cosine is the cosine similarity of a and b (llm.Cosine), 0 for vectors
// of different lengths, which only a corrupted row could hold.
func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	return llm.Cosine(a, b)
}
