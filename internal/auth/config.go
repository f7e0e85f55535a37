package auth

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/ragchat/ragchat/internal/defaults"
)

// Defaults and limits of a Config.
const (
	// DefaultLeeway is the clock-skew allowance used when Config.Leeway is 0.
	DefaultLeeway = 30 * time.Second
	// DefaultJWKSRefresh is the JWKS cache lifetime used when
	// Config.JWKSRefresh is 0.
	DefaultJWKSRefresh = 10 * time.Minute
	// JWKSMinRefreshInterval is the shortest time between two JWKS fetches,
	// whatever triggers them.
	JWKSMinRefreshInterval = 30 * time.Second
	// MinHS256SecretLen is the shortest HS256 secret accepted, in bytes.
	MinHS256SecretLen = 32
)

// Config configures a Verifier. Exactly one of HS256Secret, PublicKeyPEM and
// JWKSURL must be set.
type Config struct {
	// HS256Secret verifies HS256 tokens. For development only; at least
	// MinHS256SecretLen bytes.
	HS256Secret []byte
	// PublicKeyPEM verifies RS256 (RSA, at least 2048 bits) or ES256 (P-256)
	// tokens, depending on its key type. It holds a PKIX "PUBLIC KEY", a
	// PKCS#1 "RSA PUBLIC KEY" or a "CERTIFICATE".
	PublicKeyPEM []byte
	// JWKSURL is an http or https URL serving a JSON Web Key Set whose RSA
	// and P-256 keys, selected by `kid`, verify RS256 and ES256 tokens.
	JWKSURL string
	// Issuer, if set, must equal the token's `iss`.
	Issuer string
	// Audience, if set, must be one of the token's `aud` values.
	Audience string
	// Leeway is the clock-skew allowance for exp, nbf and iat. Zero means
	// DefaultLeeway; negative values are rejected.
	Leeway time.Duration
	// Now returns the current time. Nil means time.Now.
	Now func() time.Time
	// HTTPClient fetches the JWKS. Nil means a client with a 10-second
	// timeout.
	HTTPClient *http.Client
	// JWKSRefresh is how long a fetched key set is used before it is fetched
	// again (on the next Verify). Zero means DefaultJWKSRefresh. A token with
	// an unknown `kid` also triggers a fetch. Fetches never start more often
	// than once per JWKSMinRefreshInterval.
	JWKSRefresh time.Duration
	// Logger receives warnings about failed background JWKS refreshes (the
	// previous keys stay in use). Nil means slog.Default().
	Logger *slog.Logger
	// TokenCacheSize is how many accepted tokens Verify remembers, so that
	// a token sent again is not verified again while it is unexpired (see
	// tokenCache). Zero means DefaultTokenCacheSize; negative turns the
	// cache off.
	TokenCacheSize int
}

// withDefaults validates c and returns a copy with defaults filled in.
func (c Config) withDefaults() (Config, error) {
	sources := 0
	for _, set := range []bool{len(c.HS256Secret) > 0, len(c.PublicKeyPEM) > 0, c.JWKSURL != ""} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return c, fmt.Errorf("auth: exactly one of HS256Secret, PublicKeyPEM and JWKSURL must be set, got %d", sources)
	}
	if len(c.HS256Secret) > 0 && len(c.HS256Secret) < MinHS256SecretLen {
		return c, fmt.Errorf("auth: HS256Secret must be at least %d bytes", MinHS256SecretLen)
	}
	if c.JWKSURL != "" {
		u, err := url.Parse(c.JWKSURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, errors.New("auth: JWKSURL must be an absolute http or https URL")
		}
	}
	if c.Leeway < 0 || c.JWKSRefresh < 0 {
		return c, errors.New("auth: Leeway and JWKSRefresh must not be negative")
	}
	c.Leeway = cmp.Or(c.Leeway, DefaultLeeway)
	c.JWKSRefresh = cmp.Or(c.JWKSRefresh, DefaultJWKSRefresh)
	c.Now = defaults.Clock(c.Now)
	c.Logger = defaults.Logger(c.Logger)
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: jwksFetchTimeout}
	}
	return c, nil
}
