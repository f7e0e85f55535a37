package knowledge

import (
	"container/heap"
	"context"
	"slices"
	"sync"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/internal/chat"
)

// searchSQLite scores the readable chunks of the knowledge base in Go:
//
//  1. it reads the chunks the viewer may read (privacy applies), with
//     their documents joined (joinHitDocuments) but without their
//     embeddings and texts;
//  2. it loads, parses and caches the embeddings and texts it has not seen
//     yet, in pages of SQLiteBatch (again through privacy);
//  3. it keeps the k most similar in a heap.
//
// A warm search is one statement. Parsing the text-encoded vectors
// dominates a cold search, so parsed vectors are cached by chunk id, with
// the chunk's text (see vectorCache). The cost stays linear in the
// knowledge base's size: fine for the embedded demo and a few thousand
// chunks (see the benchmarks), not for large corpora, which belong on
// PostgreSQL.
func (r *Retriever) searchSQLite(ctx context.Context, kbID uuid.UUID, query []float32, k int) ([]chat.Hit, error) {
	readable, err := hitChunks(r.db.Client, kbID).
		Select(chunk.FieldTenantID, chunk.FieldDocumentID, chunk.FieldKnowledgeBaseID, chunk.FieldOrdinal, chunk.FieldTokenCount).
		Modify(joinHitDocuments(ctx)).
		All(ctx)
	if err != nil || len(readable) == 0 {
		return nil, err
	}
	ids := make([]uuid.UUID, len(readable))
	byID := make(map[uuid.UUID]*ent.Chunk, len(readable))
	for i, c := range readable {
		ids[i] = c.ID
		byID[c.ID] = c
	}
	known, missing := r.vectors.lookup(ids)
	for start := 0; start < len(missing); start += r.opts.SQLiteBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		page, err := readableChunks(r.db.Client, kbID).
			Where(chunk.IDIn(missing[start:min(start+r.opts.SQLiteBatch, len(missing))]...)).
			Select(chunk.FieldID, chunk.FieldEmbedding, chunk.FieldContent).
			All(ctx)
		if err != nil {
			return nil, err
		}
		for _, c := range page {
			known[c.ID] = cachedChunk{vec: c.Embedding.Slice(), content: c.Content}
		}
		r.vectors.store(page)
	}
	best := &topK{k: k}
	for id, c := range known {
		best.offer(scored{id: id, score: cosine(query, c.vec)})
	}
	hits := make([]chat.Hit, 0, best.Len())
	for _, s := range best.items {
		c := byID[s.id]
		c.Content = known[s.id].content
		d, err := hitDocumentOf(c)
		if err != nil {
			return nil, err
		}
		hits = append(hits, chat.Hit{Chunk: c, Document: d, Score: s.score})
	}
	sortHits(hits)
	return hits, nil
}

// cachedChunk is what the SQLite search keeps of a chunk: its parsed
// embedding and its text.
type cachedChunk struct {
	vec     []float32
	content string
}

// vectorCache keeps parsed chunk embeddings, with the chunks' texts, by
// chunk id for the SQLite search. An id's embedding and text never change:
// ingestion creates chunks and deletes them, and re-ingesting a document
// creates new chunks with new ids. A cached entry is only ever used for an
// id that the viewer's privacy-filtered query has just returned, so the
// cache cannot widen what anyone sees. It holds at most max entries and
// starts over when full (entries of deleted chunks are dropped then too).
type vectorCache struct {
	mu   sync.Mutex
	max  int
	vecs map[uuid.UUID]cachedChunk
}

// lookup returns the cached entries of ids and the ids it does not have.
func (c *vectorCache) lookup(ids []uuid.UUID) (map[uuid.UUID]cachedChunk, []uuid.UUID) {
	found := make(map[uuid.UUID]cachedChunk, len(ids))
	var missing []uuid.UUID
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if v, ok := c.vecs[id]; ok {
			found[id] = v
		} else {
			missing = append(missing, id)
		}
	}
	return found, missing
}

// store caches the embeddings and texts of chunks.
func (c *vectorCache) store(chunks []*ent.Chunk) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vecs == nil || len(c.vecs)+len(chunks) > c.max {
		c.vecs = make(map[uuid.UUID]cachedChunk, min(c.max, 1024))
	}
	for _, ch := range chunks {
		if len(c.vecs) >= c.max {
			return
		}
		c.vecs[ch.ID] = cachedChunk{vec: ch.Embedding.Slice(), content: ch.Content}
	}
}

// scored is a chunk id with its similarity to the query.
type scored struct {
	id    uuid.UUID
	score float64
}

// worse reports whether a ranks below b: a lower score, or the same score
// and a larger id (so that ties resolve like sortHits).
func worse(a, b scored) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return slices.Compare(a.id[:], b.id[:]) > 0
}

// topK keeps the k best scored chunks; it is a min-heap whose root is the
// worst of them.
type topK struct {
	k     int
	items []scored
}

func (t *topK) Len() int           { return len(t.items) }
func (t *topK) Less(i, j int) bool { return worse(t.items[i], t.items[j]) }
func (t *topK) Swap(i, j int)      { t.items[i], t.items[j] = t.items[j], t.items[i] }
func (t *topK) Push(x any)         { t.items = append(t.items, x.(scored)) }
func (t *topK) Pop() any {
	last := t.items[len(t.items)-1]
	t.items = t.items[:len(t.items)-1]
	return last
}

// offer adds s if it is among the k best seen so far.
func (t *topK) offer(s scored) {
	switch {
	case len(t.items) < t.k:
		heap.Push(t, s)
	case worse(t.items[0], s):
		t.items[0] = s
		heap.Fix(t, 0)
	}
}

// ids returns the ids of the kept chunks.
func (t *topK) ids() []uuid.UUID {
	ids := make([]uuid.UUID, len(t.items))
	for i, s := range t.items {
		ids[i] = s.id
	}
	return ids
}
