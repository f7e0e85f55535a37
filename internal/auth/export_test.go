package auth

// FullVerifications is how many tokens v has parsed and verified in full
// (the others came from its token cache).
func FullVerifications(v *Verifier) int64 { return v.parses.Load() }

// CachedTokens is how many accepted tokens v's cache holds.
func CachedTokens(v *Verifier) int { return v.cache.len() }
