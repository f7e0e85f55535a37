// Package cachesize describes the long-lived in-memory caches of a server
// process: what each is called and how many entries it holds against its
// bound. The server exports them as the ragchat_cache_entries and
// ragchat_cache_bound metrics (docs/DEPLOYMENT.md, "Memory"), and the soak
// test and benchmark check them.
package cachesize

// Size is one cache's entries and the bound on them.
type Size struct {
	// Name is the cache's label in the metrics, in snake_case.
	Name string
	// Entries is how many entries the cache holds now.
	Entries int
	// Bound is the most entries the cache holds, or 0 when its size is
	// bounded otherwise: by time, or by live work such as running answers
	// (docs/DEPLOYMENT.md says how for each).
	Bound int
}

// Reporter is implemented by whatever holds caches.
type Reporter interface {
	// CacheSizes returns the current size of each of its caches.
	CacheSizes() []Size
}

// Of returns the sizes reported by each of rs that is a Reporter, in
// order; the others are skipped.
func Of(rs ...any) []Size {
	var out []Size
	for _, r := range rs {
		if r, ok := r.(Reporter); ok {
			out = append(out, r.CacheSizes()...)
		}
	}
	return out
}
