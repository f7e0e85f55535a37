package auth

import "github.com/ragchat/ragchat/internal/cachesize"

// CacheSizes implements cachesize.Reporter: the accepted tokens Verify
// remembers (tokencache.go), unless the cache is off.
func (v *Verifier) CacheSizes() []cachesize.Size {
	if v.cache == nil {
		return nil
	}
	return []cachesize.Size{{Name: "auth_tokens", Entries: v.cache.len(), Bound: v.cache.size}}
}
