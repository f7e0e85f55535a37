package knowledge

import (
	"context"
	stdsql "database/sql"
	"fmt"
	"strconv"
	"strings"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
	"github.com/pgvector/pgvector-go"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/internal/chat"
)

// maxEfSearch is pgvector's upper bound of hnsw.ef_search.
const maxEfSearch = 1000

// pgCaps are the pgvector features the server offers.
type pgCaps struct {
	// iterativeScan: pgvector 0.8+ (hnsw.iterative_scan,
	// hnsw.max_scan_tuples).
	iterativeScan bool
}

// searchPostgres runs the nearest-neighbour query through Ent (so the
// privacy predicates apply):
//
//  1. with hnsw.ef_search = max(MinEfSearch, 4k) and, on pgvector 0.8+,
//     hnsw.iterative_scan = relaxed_order, so that the HNSW scan keeps
//     going while the tenant, knowledge base and ACL filters reject its
//     candidates. Every pooled connection starts with the usual values
//     (store.Session), so the common search is one statement; other
//     values (a larger k, MaxScanTuples) are set with SET LOCAL in a
//     read-only repeatable-read transaction around the search;
//  2. ORDER BY embedding <=> query LIMIT k, which the planner serves from
//     chunks_embedding_hnsw, each chunk joined with its document
//     (joinHitDocuments);
//  3. if that returns fewer than k rows (the filters were more selective
//     than the scan could make up for), the same query ordered by
//     cosine_distance(embedding, query) instead: the same distance, but a
//     function call no index can serve, so PostgreSQL scans the readable
//     chunks exactly and returns k rows whenever k exist, whatever the
//     planner settings.
//
// The query reads only what a hit needs (see hitColumns): the distance
// PostgreSQL computed, never the stored vectors. Relaxed order may return rows
// slightly out of order, so the hits are sorted by their similarity.
func (r *Retriever) searchPostgres(ctx context.Context, kbID uuid.UUID, query []float32, k int) ([]chat.Hit, error) {
	caps, err := r.pgCapabilities(ctx)
	if err != nil {
		return nil, err
	}
	vec := pgvector.NewVector(query)
	var chunks []*ent.Chunk
	if r.sessionServes(caps, k) {
		chunks, err = r.nearestWithFallback(ctx, r.db.Client, kbID, vec, k)
	} else {
		chunks, err = r.searchInTx(ctx, caps, kbID, vec, k)
	}
	if err != nil {
		return nil, err
	}
	hits := make([]chat.Hit, 0, len(chunks))
	for _, c := range chunks {
		h, err := hitOf(c)
		if err != nil {
			return nil, err
		}
		hits = append(hits, h)
	}
	sortHits(hits)
	return hits, nil
}

// searchInTx runs the search in a read-only repeatable-read transaction
// that first sets the search's settings with SET LOCAL, for when the
// connections' own settings (store.Session) are not the ones it needs.
func (r *Retriever) searchInTx(ctx context.Context, caps pgCaps, kbID uuid.UUID, vec pgvector.Vector, k int) ([]*ent.Chunk, error) {
	tx, err := r.db.Client.BeginTx(ctx, &stdsql.TxOptions{ReadOnly: true, Isolation: stdsql.LevelRepeatableRead})
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }() // a no-op after Commit
	// One round trip: the statements take no arguments, so they go out as
	// one simple-protocol query.
	settings := strings.Join(r.sessionSettings(caps, k), "; ")
	if _, err := tx.ExecContext(ctx, settings); err != nil {
		return nil, fmt.Errorf("%s: %w", settings, err)
	}
	chunks, err := r.nearestWithFallback(ctx, tx.Client(), kbID, vec, k)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	for _, c := range chunks {
		c.Unwrap() // detached from the finished transaction
	}
	return chunks, nil
}

// nearestWithFallback returns the k nearest readable chunks through
// client: the index query, then the exact one when the index returned
// fewer than k.
func (r *Retriever) nearestWithFallback(ctx context.Context, client *ent.Client, kbID uuid.UUID, vec pgvector.Vector, k int) ([]*ent.Chunk, error) {
	chunks, err := nearestChunks(ctx, client, kbID, vec, k, indexDistance)
	if err != nil {
		return nil, err
	}
	if len(chunks) < k && !r.noFallback {
		if r.onFallback != nil {
			r.onFallback()
		}
		return nearestChunks(ctx, client, kbID, vec, k, exactDistance)
	}
	return chunks, nil
}

// efSearch is the hnsw.ef_search of a search for k rows.
func (r *Retriever) efSearch(k int) int {
	return min(max(r.opts.MinEfSearch, 4*k), maxEfSearch)
}

// sessionServes reports whether every pooled connection already has the
// settings a search for k rows needs (store.Session), so that it needs no
// transaction to set them.
func (r *Retriever) sessionServes(caps pgCaps, k int) bool {
	s := r.db.Session
	return len(r.plannerHints) == 0 && r.opts.MaxScanTuples <= 0 &&
		s.EfSearch == r.efSearch(k) &&
		(!caps.iterativeScan || s.IterativeScan == iterativeScan)
}

// iterativeScan is the hnsw.iterative_scan mode of a search.
const iterativeScan = "relaxed_order"

// sessionSettings are the SET LOCAL statements of a search for k rows.
func (r *Retriever) sessionSettings(caps pgCaps, k int) []string {
	stmts := []string{fmt.Sprintf("SET LOCAL hnsw.ef_search = %d", r.efSearch(k))}
	if caps.iterativeScan {
		stmts = append(stmts, "SET LOCAL hnsw.iterative_scan = "+iterativeScan)
		if r.opts.MaxScanTuples > 0 {
			stmts = append(stmts, fmt.Sprintf("SET LOCAL hnsw.max_scan_tuples = %d", r.opts.MaxScanTuples))
		}
	}
	return append(stmts, r.plannerHints...)
}

// colDistance is the alias of the distance that nearestChunks selects.
const colDistance = "hit_distance"

// hitColumns are the chunk columns a hit carries: everything but the
// embedding, which would cost a 1,024-float text decode per row.
var hitColumns = []string{
	chunk.FieldTenantID, chunk.FieldDocumentID, chunk.FieldKnowledgeBaseID,
	chunk.FieldOrdinal, chunk.FieldContent, chunk.FieldTokenCount,
}

// distanceExpr renders the cosine distance between a chunk's embedding
// and vec: "embedding <=> vec", which the vector_cosine_ops HNSW index
// serves, or its function form, which no index can serve.
type distanceExpr func(b *sql.Builder, column string, vec pgvector.Vector)

// indexDistance is the operator form that chunks_embedding_hnsw serves
// (the same expression as pgvector-go/ent's CosineDistance).
func indexDistance(b *sql.Builder, column string, vec pgvector.Vector) {
	b.WriteString(column).WriteString(" <=> ").Arg(vec)
}

// exactDistance is pgvector's function for the <=> operator, which no
// index matches: an exact scan of the readable chunks.
func exactDistance(b *sql.Builder, column string, vec pgvector.Vector) {
	b.WriteString("cosine_distance(").WriteString(column).WriteString(", ").Arg(vec).WriteString(")")
}

// nearestChunks returns up to k readable chunks of the knowledge base in
// order of cosine distance to vec, with their documents joined
// (joinHitDocuments): the chunk columns
// of hitColumns and the distance, selected once and ordered by its alias
// (so the vector goes out once and no stored vector comes back). The
// vector is a bind argument that sql.ExprFunc numbers in place; neither a
// hand-written "$1" nor Selector.OrderExprFunc (which renders its
// expression on its own, numbering from 1 and dropping the argument) would
// survive the privacy predicates.
func nearestChunks(ctx context.Context, client *ent.Client, kbID uuid.UUID, vec pgvector.Vector, k int, distance distanceExpr) ([]*ent.Chunk, error) {
	return hitChunks(client, kbID).
		Limit(k).
		Select(hitColumns...).
		Modify(joinHitDocuments(ctx), func(s *sql.Selector) {
			column := s.C(chunk.FieldEmbedding)
			s.AppendSelectExprAs(sql.ExprFunc(func(b *sql.Builder) { distance(b, column, vec) }), colDistance)
			s.OrderBy(colDistance)
		}).
		All(ctx)
}

// hitOf returns the hit of a chunk read by nearestChunks: the chunk, its
// joined document, and the similarity from the distance PostgreSQL
// computed.
func hitOf(c *ent.Chunk) (chat.Hit, error) {
	v, err := c.Value(colDistance)
	if err != nil {
		return chat.Hit{}, err
	}
	var dist float64
	switch x := v.(type) {
	case float64:
		dist = x
	case []byte:
		if dist, err = strconv.ParseFloat(string(x), 64); err != nil {
			return chat.Hit{}, err
		}
	default:
		return chat.Hit{}, fmt.Errorf("knowledge: distance is %T, not a number", v)
	}
	d, err := hitDocumentOf(c)
	if err != nil {
		return chat.Hit{}, err
	}
	return chat.Hit{Chunk: c, Document: d, Score: 1 - dist}, nil
}

// pgCapabilities detects the pgvector version once.
func (r *Retriever) pgCapabilities(ctx context.Context) (pgCaps, error) {
	r.capsMu.Lock()
	defer r.capsMu.Unlock()
	if r.caps != nil {
		return *r.caps, nil
	}
	var version string
	err := r.db.SQL.QueryRowContext(ctx, "SELECT extversion FROM pg_extension WHERE extname = 'vector'").Scan(&version)
	if err != nil {
		return pgCaps{}, fmt.Errorf("detect pgvector: %w", err)
	}
	caps := pgCaps{iterativeScan: versionAtLeast(version, 0, 8)}
	r.caps = &caps
	return caps, nil
}

// versionAtLeast reports whether a "major.minor[.patch]" version is at
// least major.minor.
func versionAtLeast(version string, major, minor int) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}
