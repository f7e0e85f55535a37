package auth

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/ragchat/ragchat/internal/viewer"
)

// maxTokenLen bounds the tokens Verify parses, in bytes.
const maxTokenLen = 16 << 10

// Verifier checks bearer tokens and builds the viewer they describe. It is
// safe for concurrent use.
type Verifier struct {
	parser  *jwt.Parser
	keyfunc func(ctx context.Context) jwt.Keyfunc
	cache   *tokenCache
	// parses counts the tokens verified in full (for tests).
	parses atomic.Int64
}

// NewVerifier returns a Verifier for cfg. It fails when cfg does not name
// exactly one key source or the key cannot be used. A JWKS is not fetched
// here but on the first Verify.
func NewVerifier(cfg Config) (*Verifier, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	v := &Verifier{}
	var methods []string
	var cacheMaxAge time.Duration
	switch {
	case len(cfg.HS256Secret) > 0:
		methods = []string{jwt.SigningMethodHS256.Alg()}
		v.keyfunc = staticKey(slices.Clone(cfg.HS256Secret), methods[0])
	case len(cfg.PublicKeyPEM) > 0:
		key, alg, err := parsePublicKeyPEM(cfg.PublicKeyPEM)
		if err != nil {
			return nil, err
		}
		methods = []string{alg}
		v.keyfunc = staticKey(key, alg)
	default:
		methods = []string{jwt.SigningMethodRS256.Alg(), jwt.SigningMethodES256.Alg()}
		v.keyfunc = newJWKSCache(cfg).keyfunc
		// A cached token must not outlive the key set that verified it.
		cacheMaxAge = cfg.JWKSRefresh
	}
	v.cache = newTokenCache(cfg.TokenCacheSize, cacheMaxAge, cfg.Now)
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(methods),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(cfg.Leeway),
		jwt.WithTimeFunc(cfg.Now),
	}
	if cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	v.parser = jwt.NewParser(opts...)
	return v, nil
}

// Verify checks token's signature, algorithm, validity period, issuer and
// audience, and returns the viewer its claims describe. A token accepted
// before is answered from a bounded cache while it is unexpired (see
// tokenCache); every caller gets its own copy of the viewer. Every failure is a
// *domain.Error with code UNAUTHENTICATED.
func (v *Verifier) Verify(ctx context.Context, token string) (*viewer.Viewer, error) {
	if token == "" {
		return nil, unauthenticated(nil, msgMissingToken)
	}
	if len(token) > maxTokenLen {
		return nil, unauthenticated(fmt.Errorf("token longer than %d bytes", maxTokenLen), msgMalformedToken)
	}
	if vw, ok := v.cache.get(token); ok {
		return vw, nil
	}
	v.parses.Add(1)
	var claims tokenClaims
	if _, err := v.parser.ParseWithClaims(token, &claims, v.keyfunc(ctx)); err != nil {
		return nil, classify(err)
	}
	vw, err := claims.viewer()
	if err != nil {
		return nil, unauthenticated(err, msgBadClaims)
	}
	v.cache.put(token, vw)
	return vw, nil
}

// Close releases the Verifier. Keys are refreshed lazily on use, so there is
// no background goroutine to stop; Close exists so callers can treat every
// key source alike, and it is safe to call more than once.
func (v *Verifier) Close() {}

// staticKey returns a keyfunc that verifies only alg tokens, with key.
func staticKey(key any, alg string) func(context.Context) jwt.Keyfunc {
	kf := func(t *jwt.Token) (any, error) {
		if t.Method.Alg() != alg {
			return nil, fmt.Errorf("unexpected signing method %q", t.Method.Alg())
		}
		return key, nil
	}
	return func(context.Context) jwt.Keyfunc { return kf }
}
