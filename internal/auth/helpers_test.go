package auth_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/domain"
)

// base is the fixed "now" of every test clock.
var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// hsSecret is a development HS256 secret of the minimum length.
var hsSecret = []byte("0123456789abcdef0123456789abcdef")

// fakeClock is a settable clock for Config.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: base} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// testKeys are generated once per test binary: RSA generation is slow.
type testKeys struct {
	rsa, rsa2 *rsa.PrivateKey
	ec, ec2   *ecdsa.PrivateKey
}

var (
	keysOnce sync.Once
	keys     testKeys
)

func getKeys(t testing.TB) testKeys {
	t.Helper()
	keysOnce.Do(func() {
		var err error
		mustNil := func(err error) {
			if err != nil {
				panic(err)
			}
		}
		keys.rsa, err = rsa.GenerateKey(rand.Reader, 2048)
		mustNil(err)
		keys.rsa2, err = rsa.GenerateKey(rand.Reader, 2048)
		mustNil(err)
		keys.ec, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		mustNil(err)
		keys.ec2, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		mustNil(err)
	})
	return keys
}

// pkixPEM encodes pub as a PEM "PUBLIC KEY".
func pkixPEM(t testing.TB, pub any) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// certPEM encodes a self-signed certificate for priv as a PEM "CERTIFICATE".
func certPEM(t testing.TB, priv *rsa.PrivateKey) []byte {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "idp"},
		NotBefore:    base.Add(-time.Hour),
		NotAfter:     base.Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// claims returns valid claims for user u1 of tenant acme, issued at base
// and expiring an hour later.
func claims() jwt.MapClaims {
	return jwt.MapClaims{
		"sub":    "u1",
		"tenant": "acme",
		"roles":  []string{"member"},
		"iat":    base.Unix(),
		"exp":    base.Add(time.Hour).Unix(),
	}
}

// sign signs c with method and key, setting the kid header when not empty.
func sign(t testing.TB, method jwt.SigningMethod, key any, kid string, c jwt.Claims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	require.NoError(t, err)
	return s
}

// unsignedNone returns an `alg: none` token for c.
func unsignedNone(t testing.TB, c jwt.Claims, kid string) string {
	return sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, kid, c)
}

// requireUnauthenticated asserts that err is an UNAUTHENTICATED domain error
// with message msg, a wrapped cause, and no trace of token.
func requireUnauthenticated(t testing.TB, err error, msg, token string) {
	t.Helper()
	require.Error(t, err)
	var de *domain.Error
	require.True(t, errors.As(err, &de), "error %v is not a *domain.Error", err)
	require.Equal(t, domain.CodeUnauthenticated, de.Code)
	require.Equal(t, msg, de.Message, "cause: %v", de.Err)
	require.Error(t, de.Err, "cause must be wrapped")
	if token != "" {
		require.NotContains(t, err.Error(), token)
	}
}

// jwk is the JSON form of one public key in a test JWKS.
type jwk map[string]string

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// rsaJWK describes pub as an RSA JWK.
func rsaJWK(kid string, pub *rsa.PublicKey) jwk {
	return jwk{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
		"n": b64(pub.N.Bytes()), "e": b64(big.NewInt(int64(pub.E)).Bytes())}
}

// ecJWK describes pub as an EC JWK (P-256 or P-384).
func ecJWK(kid string, pub *ecdsa.PublicKey) jwk {
	size := (pub.Curve.Params().BitSize + 7) / 8
	pad := func(i *big.Int) string { return b64(i.FillBytes(make([]byte, size))) }
	return jwk{"kty": "EC", "kid": kid, "crv": pub.Curve.Params().Name,
		"x": pad(pub.X), "y": pad(pub.Y)}
}

// jwksServer serves a settable JWKS and counts the requests it answers.
type jwksServer struct {
	*httptest.Server
	mu     sync.Mutex
	keys   []jwk
	status int
	hits   atomic.Int32
}

func newJWKSServer(t testing.TB, keys ...jwk) *jwksServer {
	t.Helper()
	s := &jwksServer{keys: keys, status: http.StatusOK}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		status, body := s.status, map[string]any{"keys": s.keys}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(s.Close)
	return s
}

// set replaces the served keys and HTTP status.
func (s *jwksServer) set(status int, keys ...jwk) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.keys = status, keys
}

// newVerifier builds a verifier and closes it when the test ends.
func newVerifier(t testing.TB, cfg auth.Config) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(cfg)
	require.NoError(t, err)
	t.Cleanup(v.Close)
	return v
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
