// Package auth verifies JWT bearer tokens and turns them into a
// *viewer.Viewer.
//
// The viewer is rebuilt from the verified token alone: the tenant comes from
// the `tenant` (or `tid`) claim, the user from `sub`, the roles and ACL
// groups from `roles` and `groups`. No request field can name a tenant or a
// user.
//
// A Verifier has exactly one key source, and the signing algorithms it
// accepts are pinned by that source: HS256 for a shared secret (development
// only), RS256 or ES256 for a PEM public key, and RS256 and ES256 for a JWKS
// endpoint. A token whose header names any other algorithm, including
// "none", is rejected before any key is used, which rules out algorithm
// confusion (an HS256 token "signed" with an RSA public key's bytes).
//
// JWKS keys are fetched lazily, on use, with an injectable clock: the first
// Verify fetches the set, a set older than Config.JWKSRefresh is refetched on
// the next Verify, and a token whose `kid` is unknown triggers a refetch. All
// fetches are single-flight and at most one starts per 30 seconds, so a flood
// of tokens with made-up key ids cannot hammer the identity provider. When a
// refetch fails the last good key set stays in use. The Verifier starts no
// goroutines.
//
// Every verification failure is a *domain.Error with code UNAUTHENTICATED, a
// short client-safe message and the cause wrapped for logs. Neither ever
// contains the token.
package auth
