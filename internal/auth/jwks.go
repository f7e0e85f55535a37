package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// Limits of JWKS fetching.
const (
	jwksFetchTimeout = 10 * time.Second
	jwksMaxBytes     = 1 << 20
	maxKIDLen        = 256
)

// jwksKey is one usable key of a JWKS and the algorithm it verifies.
type jwksKey struct {
	key any
	alg string
}

// jwksCache holds the keys of one JWKS endpoint and refetches them lazily:
// when the set is older than maxAge, or when a token names an unknown kid.
// Fetches are single-flight and start at most once per
// JWKSMinRefreshInterval. It is safe for concurrent use.
type jwksCache struct {
	url    string
	client *http.Client
	now    func() time.Time
	maxAge time.Duration
	log    *slog.Logger

	// sem is held (a value sent) by the goroutine that may fetch. It guards
	// attemptedAt and lastErr.
	sem         chan struct{}
	attemptedAt time.Time
	lastErr     error

	mu        sync.RWMutex
	keys      map[string]jwksKey
	fetchedAt time.Time
}

// newJWKSCache returns an empty cache for cfg.JWKSURL; cfg has defaults.
func newJWKSCache(cfg Config) *jwksCache {
	return &jwksCache{
		url:    cfg.JWKSURL,
		client: cfg.HTTPClient,
		now:    cfg.Now,
		maxAge: cfg.JWKSRefresh,
		log:    cfg.Logger,
		sem:    make(chan struct{}, 1),
	}
}

// keyfunc returns a jwt.Keyfunc that selects the key by the token's kid
// header and checks that it verifies the token's algorithm.
func (c *jwksCache) keyfunc(ctx context.Context) jwt.Keyfunc {
	return func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if kid == "" || len(kid) > maxKIDLen {
			return nil, errors.New("token has no usable kid header")
		}
		k, err := c.key(ctx, kid)
		if err != nil {
			return nil, err
		}
		if k.alg != t.Method.Alg() {
			return nil, fmt.Errorf("key verifies %s, token uses %s", k.alg, t.Method.Alg())
		}
		return k.key, nil
	}
}

// key returns the key named kid, refreshing the set when it is stale or
// does not hold kid (within the fetch rate limit).
func (c *jwksCache) key(ctx context.Context, kid string) (jwksKey, error) {
	if c.stale() {
		c.tryRefresh(ctx)
	}
	if k, ok := c.lookup(kid); ok {
		return k, nil
	}
	// Unknown kid: wait for any fetch in flight, then fetch if allowed.
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return jwksKey{}, fmt.Errorf("%w: %w", errUnknownKey, ctx.Err())
	}
	defer func() { <-c.sem }()
	if k, ok := c.lookup(kid); ok {
		return k, nil
	}
	if !c.mayFetch() {
		return jwksKey{}, fmt.Errorf("%w (refetch rate-limited; last fetch error: %v)", errUnknownKey, c.lastErr)
	}
	if err := c.fetch(ctx); err != nil {
		return jwksKey{}, fmt.Errorf("%w: %w", errUnknownKey, err)
	}
	if k, ok := c.lookup(kid); ok {
		return k, nil
	}
	return jwksKey{}, errUnknownKey
}

// tryRefresh fetches the set if it is stale, no fetch is in flight and the
// rate limit allows. On failure the old keys stay in use.
func (c *jwksCache) tryRefresh(ctx context.Context) {
	select {
	case c.sem <- struct{}{}:
	default:
		return // another goroutine is fetching
	}
	defer func() { <-c.sem }()
	if c.stale() && c.mayFetch() {
		if err := c.fetch(ctx); err != nil {
			c.log.WarnContext(ctx, "auth: JWKS refresh failed; keeping the previous keys", "error", err)
		}
	}
}

// stale reports whether the set was never fetched or is older than maxAge.
func (c *jwksCache) stale() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.fetchedAt.IsZero() || c.now().Sub(c.fetchedAt) >= c.maxAge
}

// mayFetch reports whether the rate limit allows a fetch now. The caller
// holds sem.
func (c *jwksCache) mayFetch() bool {
	return c.attemptedAt.IsZero() || c.now().Sub(c.attemptedAt) >= JWKSMinRefreshInterval
}

// lookup returns the cached key named kid.
func (c *jwksCache) lookup(kid string) (jwksKey, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	k, ok := c.keys[kid]
	return k, ok
}

// fetch downloads and parses the set and, if it holds a usable key,
// replaces the cached keys. The caller holds sem.
func (c *jwksCache) fetch(ctx context.Context) error {
	started := c.now()
	c.attemptedAt = started
	keys, err := c.download(ctx)
	c.lastErr = err
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.keys, c.fetchedAt = keys, started
	c.mu.Unlock()
	return nil
}

// download GETs the JWKS and parses its usable keys.
func (c *jwksCache) download(ctx context.Context) (map[string]jwksKey, error) {
	// The fetch outlives a caller that gives up: its result serves everyone,
	// and an aborted fetch would still use up the rate limit.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jwksFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, fmt.Errorf("jwks request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("jwks fetch: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("jwks fetch: status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, jwksMaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("jwks read: %w", err)
	}
	if len(body) > jwksMaxBytes {
		return nil, fmt.Errorf("jwks larger than %d bytes", jwksMaxBytes)
	}
	return parseJWKS(body)
}

// parseJWKS returns the usable signing keys of a JWK Set by kid: RSA keys of
// at least 2048 bits (RS256) and P-256 keys (ES256) that have a kid, whose
// `use` is absent or "sig" and whose `alg`, if present, is the one the key
// type implies. Other keys are skipped, as is any repeat of a kid. A set
// without a usable key is an error.
func parseJWKS(body []byte) (map[string]jwksKey, error) {
	var set jwkset.JWKSMarshal
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("jwks decode: %w", err)
	}
	keys := make(map[string]jwksKey, len(set.Keys))
	for _, m := range set.Keys {
		if m.KID == "" || len(m.KID) > maxKIDLen || (m.USE != "" && m.USE != jwkset.UseSig) {
			continue
		}
		if _, dup := keys[m.KID]; dup {
			continue
		}
		// Private: false makes jwkset ignore any private key material.
		jwk, err := jwkset.NewJWKFromMarshal(m, jwkset.JWKMarshalOptions{}, jwkset.JWKValidateOptions{})
		if err != nil {
			continue
		}
		alg, err := algorithmFor(jwk.Key())
		if err != nil || (m.ALG != "" && m.ALG.String() != alg) {
			continue
		}
		keys[m.KID] = jwksKey{key: jwk.Key(), alg: alg}
	}
	if len(keys) == 0 {
		return nil, errors.New("jwks has no usable RS256 or ES256 key")
	}
	return keys, nil
}
