package tokens

import "github.com/ragchat/ragchat/internal/cachesize"

// CacheSizes returns the sizes of the token-count caches (countcache.go)
// of the encodings loaded so far in this process, named
// tokens_counts_<encoding>. Counters are process-wide, so every engine of
// a process reports the same caches.
func CacheSizes() []cachesize.Size {
	var out []cachesize.Size
	for _, name := range []string{O200KBase, CL100KBase} {
		if c := loaded[name].Load(); c != nil && c.cache != nil {
			out = append(out, cachesize.Size{Name: "tokens_counts_" + name, Entries: c.cache.len(), Bound: countCacheSize})
		}
	}
	return out
}
