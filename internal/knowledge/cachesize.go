package knowledge

import (
	"entgo.io/ent/dialect"

	"github.com/ragchat/ragchat/internal/cachesize"
)

// CacheSizes implements cachesize.Reporter: on SQLite, the parsed chunk
// embeddings the search keeps (vectorCache). PostgreSQL searches in the
// database and caches nothing.
func (r *Retriever) CacheSizes() []cachesize.Size {
	if r.db.Dialect != dialect.SQLite || r.vectors.max <= 0 {
		return nil
	}
	r.vectors.mu.Lock()
	n := len(r.vectors.vecs)
	r.vectors.mu.Unlock()
	return []cachesize.Size{{Name: "knowledge_sqlite_vectors", Entries: n, Bound: r.vectors.max}}
}
