package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/auth"
)

// jwksFixture is a JWKS server serving r1 (RSA) and a verifier using it
// with a fake clock.
type jwksFixture struct {
	srv   *jwksServer
	clock *fakeClock
	v     *auth.Verifier
	keys  testKeys
	logs  syncBuffer
}

func newJWKSFixture(t *testing.T, served ...jwk) *jwksFixture {
	k := getKeys(t)
	if len(served) == 0 {
		served = []jwk{rsaJWK("r1", &k.rsa.PublicKey)}
	}
	f := &jwksFixture{srv: newJWKSServer(t, served...), clock: newClock(), keys: k}
	f.v = newVerifier(t, auth.Config{
		JWKSURL: f.srv.URL, HTTPClient: f.srv.Client(), Now: f.clock.Now,
		Logger: slog.New(slog.NewTextHandler(&f.logs, nil)),
	})
	return f
}

// verify verifies an RS256 token signed by key with kid.
func (f *jwksFixture) verify(t *testing.T, key *rsa.PrivateKey, kid string) error {
	t.Helper()
	_, err := f.v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, key, kid, claims()))
	return err
}

func (f *jwksFixture) hits() int { return int(f.srv.hits.Load()) }

func TestJWKSUnknownKidRefreshesOnceAfterRotation(t *testing.T) {
	f := newJWKSFixture(t)
	require.NoError(t, f.verify(t, f.keys.rsa, "r1"))
	require.Equal(t, 1, f.hits(), "first use fetches the set")

	// The provider rotates in r2.
	f.srv.set(http.StatusOK, rsaJWK("r1", &f.keys.rsa.PublicKey), rsaJWK("r2", &f.keys.rsa2.PublicKey))
	f.clock.Advance(auth.JWKSMinRefreshInterval)
	require.NoError(t, f.verify(t, f.keys.rsa2, "r2"))
	require.Equal(t, 2, f.hits(), "an unknown kid triggers exactly one fetch")

	require.NoError(t, f.verify(t, f.keys.rsa2, "r2"))
	require.NoError(t, f.verify(t, f.keys.rsa, "r1"))
	require.Equal(t, 2, f.hits(), "known kids are served from the cache")
}

func TestJWKSUnknownKidRefetchIsRateLimited(t *testing.T) {
	f := newJWKSFixture(t)
	require.NoError(t, f.verify(t, f.keys.rsa, "r1"))

	// Within 30s of the last fetch an unknown kid fetches nothing.
	f.srv.set(http.StatusOK, rsaJWK("r1", &f.keys.rsa.PublicKey), rsaJWK("r2", &f.keys.rsa2.PublicKey))
	requireUnauthenticated(t, f.verify(t, f.keys.rsa2, "r2"), "unknown signing key", "")
	require.Equal(t, 1, f.hits())

	steps := []struct {
		advance  time.Duration
		kid      string
		wantHits int
	}{
		{29 * time.Second, "ghost", 1},
		{1 * time.Second, "ghost", 2}, // 30s after the first fetch
		{0, "ghost", 2},
		{0, "other-ghost", 2},
		{29 * time.Second, "ghost", 2},
		{1 * time.Second, "ghost", 3},
	}
	for i, s := range steps {
		f.clock.Advance(s.advance)
		for range 5 {
			requireUnauthenticated(t, f.verify(t, f.keys.rsa2, s.kid), "unknown signing key", "")
		}
		require.Equal(t, s.wantHits, f.hits(), "step %d", i)
	}
	// The fetches above picked up r2.
	require.NoError(t, f.verify(t, f.keys.rsa2, "r2"))
	require.Equal(t, 3, f.hits())
}

func TestJWKSPeriodicRefreshDropsRevokedKeys(t *testing.T) {
	f := newJWKSFixture(t)
	require.NoError(t, f.verify(t, f.keys.rsa, "r1"))

	// The provider revokes r1 and publishes r2.
	f.srv.set(http.StatusOK, rsaJWK("r2", &f.keys.rsa2.PublicKey))
	f.clock.Advance(auth.DefaultJWKSRefresh - time.Second)
	require.NoError(t, f.verify(t, f.keys.rsa, "r1"), "the cached set is still fresh")
	require.Equal(t, 1, f.hits())

	f.clock.Advance(time.Second)
	requireUnauthenticated(t, f.verify(t, f.keys.rsa, "r1"), "unknown signing key", "")
	require.Equal(t, 2, f.hits(), "a stale set is refetched once")
	require.NoError(t, f.verify(t, f.keys.rsa2, "r2"))
	require.Equal(t, 2, f.hits())
}

func TestJWKSKeepsKeysWhenRefreshFails(t *testing.T) {
	tests := []struct {
		name   string
		status int
		keys   []jwk
	}{
		{"server error", http.StatusInternalServerError, nil},
		{"empty set", http.StatusOK, nil},
		{"only unusable keys", http.StatusOK, []jwk{{"kty": "oct", "kid": "h", "k": "c2VjcmV0"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newJWKSFixture(t)
			require.NoError(t, f.verify(t, f.keys.rsa, "r1"))
			f.srv.set(tt.status, tt.keys...)
			f.clock.Advance(auth.DefaultJWKSRefresh)
			require.NoError(t, f.verify(t, f.keys.rsa, "r1"))
			require.Equal(t, 2, f.hits(), "the refresh was attempted")
			require.Contains(t, f.logs.String(), "JWKS refresh failed")
		})
	}
}

func TestJWKSUnreachableOnFirstUse(t *testing.T) {
	f := newJWKSFixture(t)
	f.srv.set(http.StatusServiceUnavailable)
	err := f.verify(t, f.keys.rsa, "r1")
	requireUnauthenticated(t, err, "unknown signing key", "")
	require.ErrorContains(t, err, "status 503")
	require.Equal(t, 1, f.hits())

	// Once the provider recovers and the rate limit has passed, it works.
	f.srv.set(http.StatusOK, rsaJWK("r1", &f.keys.rsa.PublicKey))
	f.clock.Advance(auth.JWKSMinRefreshInterval)
	require.NoError(t, f.verify(t, f.keys.rsa, "r1"))
	require.Equal(t, 2, f.hits())
}

func TestJWKSSkipsUnusableKeys(t *testing.T) {
	k := getKeys(t)
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)

	encKey := rsaJWK("enc", &k.rsa2.PublicKey)
	encKey["use"] = "enc"
	rs512Key := rsaJWK("rs512", &k.rsa2.PublicKey)
	rs512Key["alg"] = "RS512"
	p384Key := ecJWK("p384", &p384.PublicKey)
	noKid := rsaJWK("", &k.rsa2.PublicKey)
	delete(noKid, "kid")
	f := newJWKSFixture(t,
		rsaJWK("r1", &k.rsa.PublicKey),
		rsaJWK("r1", &k.rsa2.PublicKey), // a repeated kid does not replace the first
		encKey, rs512Key, p384Key, noKid,
		rsaJWK("small", &small.PublicKey),
		jwk{"kty": "oct", "kid": "hmac", "k": b64(hsSecret)},
		jwk{"kty": "RSA", "kid": "broken", "n": "!!", "e": "AQAB"},
	)
	tests := []struct {
		name, token, wantMsg string
	}{
		{"good key", sign(t, jwt.SigningMethodRS256, k.rsa, "r1", claims()), ""},
		{"repeated kid", sign(t, jwt.SigningMethodRS256, k.rsa2, "r1", claims()), "invalid token"},
		{"encryption key", sign(t, jwt.SigningMethodRS256, k.rsa2, "enc", claims()), "unknown signing key"},
		{"RS512 key", sign(t, jwt.SigningMethodRS256, k.rsa2, "rs512", claims()), "unknown signing key"},
		{"P-384 key", sign(t, jwt.SigningMethodES384, p384, "p384", claims()), "invalid token"},
		{"P-384 key as ES256", sign(t, jwt.SigningMethodES256, k.ec, "p384", claims()), "unknown signing key"},
		{"1024-bit key", sign(t, jwt.SigningMethodRS256, small, "small", claims()), "unknown signing key"},
		{"symmetric key", sign(t, jwt.SigningMethodHS256, hsSecret, "hmac", claims()), "invalid token"},
		{"broken key", sign(t, jwt.SigningMethodRS256, k.rsa2, "broken", claims()), "unknown signing key"},
		{"no kid header", sign(t, jwt.SigningMethodRS256, k.rsa, "", claims()), "invalid token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.v.Verify(context.Background(), tt.token)
			if tt.wantMsg == "" {
				require.NoError(t, err)
				return
			}
			requireUnauthenticated(t, err, tt.wantMsg, tt.token)
		})
	}
	require.Equal(t, 1, f.hits(), "unknown kids within the rate limit fetch nothing")
}

func TestJWKSConcurrentFirstUseFetchesOnce(t *testing.T) {
	f := newJWKSFixture(t)
	tok := sign(t, jwt.SigningMethodRS256, f.keys.rsa, "r1", claims())
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = f.v.Verify(context.Background(), tok)
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, 1, f.hits())
}

func TestJWKSFetchSurvivesCancelledCaller(t *testing.T) {
	f := newJWKSFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.v.Verify(ctx, sign(t, jwt.SigningMethodRS256, f.keys.rsa, "r1", claims()))
	require.NoError(t, err, "the fetch does not depend on the caller's context")
	require.Equal(t, 1, f.hits())
}
