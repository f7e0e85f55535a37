package tokens

import (
	"hash/maphash"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Token-count cache sizes: texts shorter than minCachedLen are cheap to
// count and are counted every time; at most countCacheSize counts are
// kept per encoding (a few dozen bytes each).
const (
	minCachedLen   = 256
	countCacheSize = 8192
)

// countCache remembers the token counts of long texts. Prompt assembly
// counts the same texts on every ask: the evidence chunks a popular
// question retrieves and, above all, every earlier round of a
// conversation, which is recounted at each new question. Tokenising is the
// expensive part of counting with tiktoken (hundreds of microseconds for a
// 2 KB chunk); a count depends only on the text, so it can be reused.
//
// Texts are keyed by two independent 64-bit hashes (per-process random
// seeds) and their length, so two different texts share a key with
// probability about 2^-128; the text itself is not kept.
type countCache struct {
	seed1, seed2 maphash.Seed
	entries      *lru.Cache[countKey, int]
}

type countKey struct {
	h1, h2 uint64
	n      int
}

func newCountCache(size int) *countCache {
	entries, err := lru.New[countKey, int](size)
	if err != nil {
		return nil
	}
	return &countCache{seed1: maphash.MakeSeed(), seed2: maphash.MakeSeed(), entries: entries}
}

// count returns the cached count of s, computing and remembering it with
// count on a miss. Short texts are never cached.
func (c *countCache) count(s string, count func(string) int) int {
	if c == nil || len(s) < minCachedLen {
		return count(s)
	}
	k := countKey{h1: maphash.String(c.seed1, s), h2: maphash.String(c.seed2, s), n: len(s)}
	if n, ok := c.entries.Get(k); ok {
		return n
	}
	n := count(s)
	c.entries.Add(k, n)
	return n
}

// len is the number of cached counts (for tests).
func (c *countCache) len() int {
	if c == nil {
		return 0
	}
	return c.entries.Len()
}
