package server

import (
	"context"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ragchat/ragchat/internal/cachesize"
)

// The server's own caches: parsed documents (gqlgen's query cache),
// persisted queries (APQ) and documents that passed the precheck.
const (
	queryCacheSize    = 1000
	precheckCacheSize = 1000
)

// lruCache is a graphql.Cache of at most size entries, the least recently
// used out first, that can tell how many it holds (gqlgen's own cannot).
type lruCache[T any] struct {
	c    *lru.Cache[string, T]
	size int
}

// newLRUCache returns an empty cache of size entries (at least 1).
func newLRUCache[T any](size int) *lruCache[T] {
	size = max(size, 1)
	c, _ := lru.New[string, T](size) // fails only for a size below 1
	return &lruCache[T]{c: c, size: size}
}

// Get implements graphql.Cache.
func (l *lruCache[T]) Get(_ context.Context, key string) (T, bool) { return l.c.Get(key) }

// Add implements graphql.Cache.
func (l *lruCache[T]) Add(_ context.Context, key string, value T) { l.c.Add(key, value) }

// sizeAs reports the cache as name.
func (l *lruCache[T]) sizeAs(name string) cachesize.Size {
	return cachesize.Size{Name: name, Entries: l.c.Len(), Bound: l.size}
}

// CacheSizes implements cachesize.Reporter for the server's own caches.
func (s *Server) CacheSizes() []cachesize.Size {
	var out []cachesize.Size
	for _, c := range s.caches {
		out = append(out, c())
	}
	return out
}

// WatchCaches exports the caches of rs (each a cachesize.Reporter) as
// ragchat_cache_entries{cache} and, for those bounded by a count,
// ragchat_cache_bound{cache}, read at each scrape (docs/DEPLOYMENT.md,
// "Memory"). Call it once, where the process is wired.
func (m *Metrics) WatchCaches(rs ...any) {
	m.registry.MustRegister(&cacheCollector{reporters: rs,
		entries: prometheus.NewDesc("ragchat_cache_entries", "Entries held by each long-lived in-memory cache.", []string{"cache"}, nil),
		bound:   prometheus.NewDesc("ragchat_cache_bound", "The most entries a cache holds, for caches bounded by a count.", []string{"cache"}, nil),
	})
}

// cacheCollector reads the caches' sizes at each scrape.
type cacheCollector struct {
	reporters      []any
	entries, bound *prometheus.Desc
}

func (c *cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.entries
	ch <- c.bound
}

func (c *cacheCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range cachesize.Of(c.reporters...) {
		ch <- prometheus.MustNewConstMetric(c.entries, prometheus.GaugeValue, float64(s.Entries), s.Name)
		if s.Bound > 0 {
			ch <- prometheus.MustNewConstMetric(c.bound, prometheus.GaugeValue, float64(s.Bound), s.Name)
		}
	}
}
