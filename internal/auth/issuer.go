package auth

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Issuer mints HS256 tokens for development and tests. Production tokens
// come from an identity provider and are verified with a public key or a
// JWKS.
type Issuer struct {
	secret []byte
	issuer string
	now    func() time.Time
}

// NewDevIssuer returns an Issuer that signs with secret and, when issuer is
// not empty, sets `iss` on tokens that have none. The secret must be at
// least MinHS256SecretLen bytes, or Mint fails.
func NewDevIssuer(secret []byte, issuer string) *Issuer {
	return &Issuer{secret: slices.Clone(secret), issuer: issuer, now: time.Now}
}

// Mint signs c as an HS256 token valid for ttl from now. It sets `iat` and
// `exp`, and `iss` when c has none. It refuses claims that a Verifier would
// reject (no subject, a bad tenant key, too many groups), so a development
// token fails here rather than at login.
func (i *Issuer) Mint(c Claims, ttl time.Duration) (string, error) {
	if len(i.secret) < MinHS256SecretLen {
		return "", fmt.Errorf("auth: dev issuer secret must be at least %d bytes", MinHS256SecretLen)
	}
	if ttl <= 0 {
		return "", errors.New("auth: token ttl must be positive")
	}
	if _, err := buildViewer(c.Subject, c.Tenant, c.Roles, c.Groups); err != nil {
		return "", fmt.Errorf("auth: mint: %w", err)
	}
	now := i.now()
	c.IssuedAt = jwt.NewNumericDate(now)
	c.ExpiresAt = jwt.NewNumericDate(now.Add(ttl))
	if c.Issuer == "" {
		c.Issuer = i.issuer
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(i.secret)
}
