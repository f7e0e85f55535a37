package knowledge

import (
	"cmp"

	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/knowledge/chunker"
)

// Defaults of Options.
const (
	// DefaultChunkTokens is the largest chunk, in tokens of the counter.
	DefaultChunkTokens = 400
	// DefaultOverlapTokens is how many tokens of whole sentences a chunk
	// repeats from the previous chunk of its section.
	DefaultOverlapTokens = 60
	// DefaultEmbedBatch is how many chunks one embedding call embeds.
	DefaultEmbedBatch = 32
	// DefaultMaxDocumentBytes caps the content of one document (2 MiB).
	DefaultMaxDocumentBytes = 2 << 20
)

// Options tune a Service. Zero fields take the defaults above.
type Options struct {
	// ChunkTokens is the largest chunk in tokens, heading line included.
	ChunkTokens int
	// OverlapTokens bounds the overlap between consecutive chunks. Zero
	// means DefaultOverlapTokens, capped at a quarter of ChunkTokens; a
	// negative value turns overlap off.
	OverlapTokens int
	// EmbedBatch is the number of chunks per embedding call.
	EmbedBatch int
	// MaxDocumentBytes caps the size of a document's content.
	MaxDocumentBytes int
	// Changes is told of every committed change of document access (nil:
	// nobody is).
	Changes AccessNotifier
	// Documents is told which documents' content changed once each change
	// is committed (nil: nobody is).
	Documents DocumentNotifier
}

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	o.ChunkTokens = defaults.Positive(o.ChunkTokens, DefaultChunkTokens)
	switch {
	case o.OverlapTokens < 0:
		o.OverlapTokens = chunker.NoOverlap
	case o.OverlapTokens == 0:
		o.OverlapTokens = min(DefaultOverlapTokens, o.ChunkTokens/4)
		o.OverlapTokens = cmp.Or(o.OverlapTokens, chunker.NoOverlap)
	}
	o.EmbedBatch = defaults.Positive(o.EmbedBatch, DefaultEmbedBatch)
	o.MaxDocumentBytes = defaults.Positive(o.MaxDocumentBytes, DefaultMaxDocumentBytes)
	return o
}

// Defaults of RetrieverOptions.
const (
	// DefaultMinEfSearch is the smallest hnsw.ef_search a search uses; it
	// grows to 4k for larger k.
	DefaultMinEfSearch = 40
	// DefaultMaxK is the largest k a search accepts.
	DefaultMaxK = 200
	// DefaultSQLiteBatch is how many chunk embeddings the SQLite search
	// loads per query.
	DefaultSQLiteBatch = 500
	// DefaultSQLiteCacheVectors is how many parsed embeddings the SQLite
	// search keeps (4 KiB each: 80 MiB).
	DefaultSQLiteCacheVectors = 20_000
)

// RetrieverOptions tune a Retriever. Zero fields take the defaults above.
type RetrieverOptions struct {
	// MinEfSearch is the floor of hnsw.ef_search (PostgreSQL).
	MinEfSearch int
	// MaxScanTuples sets hnsw.max_scan_tuples, the most tuples an iterative
	// index scan visits before it gives up (PostgreSQL, pgvector 0.8+).
	// Zero keeps the server's setting (20000 by default). When the index
	// scan returns fewer than k rows, the search falls back to an exact
	// scan, so this trades latency for the fallback's likelihood.
	MaxScanTuples int
	// MaxK is the largest k Search accepts.
	MaxK int
	// SQLiteBatch is how many embeddings one SQLite query loads.
	SQLiteBatch int
	// SQLiteCacheVectors caps the parsed embeddings the SQLite search
	// caches; negative disables the cache.
	SQLiteCacheVectors int
}

// withDefaults fills the zero fields of o.
func (o RetrieverOptions) withDefaults() RetrieverOptions {
	o.MinEfSearch = defaults.Positive(o.MinEfSearch, DefaultMinEfSearch)
	o.MaxK = defaults.Positive(o.MaxK, DefaultMaxK)
	o.SQLiteBatch = defaults.Positive(o.SQLiteBatch, DefaultSQLiteBatch)
	o.SQLiteCacheVectors = cmp.Or(o.SQLiteCacheVectors, DefaultSQLiteCacheVectors)
	return o
}
