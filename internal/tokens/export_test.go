package tokens

// Encodes is how many texts c (a tiktoken counter) has tokenised.
func Encodes(c Counter) int64 { return c.(*bpeCounter).encodes.Load() }

// CachedCounts is how many counts c's cache holds.
func CachedCounts(c Counter) int { return c.(*bpeCounter).cache.len() }

// Uncached returns c (a tiktoken counter) without a count cache.
func Uncached(c Counter) Counter {
	b := c.(*bpeCounter)
	return &bpeCounter{enc: b.enc, name: b.name}
}

// WithCacheSize returns c (a tiktoken counter) with its own cache of size.
func WithCacheSize(c Counter, size int) Counter {
	b := c.(*bpeCounter)
	return &bpeCounter{enc: b.enc, name: b.name, cache: newCountCache(size)}
}

// MinCachedLen exposes minCachedLen.
const MinCachedLen = minCachedLen
