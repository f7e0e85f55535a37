package auth

import (
	"crypto/sha256"
	"slices"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ragchat/ragchat/internal/viewer"
)

// DefaultTokenCacheSize is how many verified tokens a Verifier remembers
// when Config.TokenCacheSize is 0.
const DefaultTokenCacheSize = 4096

// tokenCache remembers the tokens Verify has accepted, so that a client
// sending the same bearer token with every request (the web console, the
// API's HTTP clients) is not parsed and verified again each time.
//
// An entry is keyed by the SHA-256 of the whole token (header, claims and
// signature), so a token that differs in any byte, a forged signature
// included, misses and is verified in full. An entry is used only while
// its token is unexpired: until `exp` (without the clock-skew leeway; a
// token in its leeway is verified again), and, for keys fetched from a
// JWKS, no longer than the key set itself is trusted before it is fetched
// again (Config.JWKSRefresh), so a key removed from the set stops
// verifying cached tokens as soon as it stops verifying new ones. The
// cache holds at most its size of entries, least recently used first out.
// Each caller gets its own copy of the viewer.
type tokenCache struct {
	entries *lru.Cache[[sha256.Size]byte, cachedToken]
	size    int // the most entries
	// maxAge bounds an entry's life besides its token's expiry (0: none).
	maxAge time.Duration
	now    func() time.Time
}

// cachedToken is an accepted token's viewer and the instant the entry
// stops being used.
type cachedToken struct {
	viewer viewer.Viewer
	until  time.Time
}

// newTokenCache returns a cache of size entries, or nil when size is
// negative (caching off).
func newTokenCache(size int, maxAge time.Duration, now func() time.Time) *tokenCache {
	if size < 0 {
		return nil
	}
	if size == 0 {
		size = DefaultTokenCacheSize
	}
	entries, err := lru.New[[sha256.Size]byte, cachedToken](size)
	if err != nil {
		return nil
	}
	return &tokenCache{entries: entries, size: size, maxAge: maxAge, now: now}
}

// get returns a copy of the viewer of an accepted, still unexpired token.
func (c *tokenCache) get(token string) (*viewer.Viewer, bool) {
	if c == nil {
		return nil, false
	}
	key := sha256.Sum256([]byte(token))
	e, ok := c.entries.Get(key)
	if !ok {
		return nil, false
	}
	if !c.now().Before(e.until) {
		c.entries.Remove(key)
		return nil, false
	}
	return cloneViewer(&e.viewer), true
}

// put remembers that token was accepted as v. Tokens without an expiry
// (which Verify never accepts) are not remembered.
func (c *tokenCache) put(token string, v *viewer.Viewer) {
	if c == nil || v.ExpiresAt.IsZero() {
		return
	}
	until := v.ExpiresAt
	if c.maxAge > 0 {
		if limit := c.now().Add(c.maxAge); limit.Before(until) {
			until = limit
		}
	}
	if !c.now().Before(until) {
		return
	}
	c.entries.Add(sha256.Sum256([]byte(token)), cachedToken{viewer: *cloneViewer(v), until: until})
}

// len is the number of entries (for tests).
func (c *tokenCache) len() int {
	if c == nil {
		return 0
	}
	return c.entries.Len()
}

// cloneViewer copies v and its slices, so that no caller can change what
// another caller, or the cache, holds.
func cloneViewer(v *viewer.Viewer) *viewer.Viewer {
	out := *v
	out.Roles = slices.Clone(v.Roles)
	out.Groups = slices.Clone(v.Groups)
	return &out
}
