package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/viewer"
)

func TestIssuerRoundTrip(t *testing.T) {
	iss := auth.NewDevIssuer(hsSecret, "ragchat-dev")
	tok, err := iss.Mint(auth.Claims{
		Tenant: "acme",
		Roles:  []string{"agent", "wizard"},
		Groups: []string{"eng", "eng", "ops"},
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:  "u7",
			Audience: jwt.ClaimStrings{"ragchat"},
		},
	}, time.Hour)
	require.NoError(t, err)

	v := newVerifier(t, auth.Config{HS256Secret: hsSecret, Issuer: "ragchat-dev", Audience: "ragchat"})
	got, err := v.Verify(context.Background(), tok)
	require.NoError(t, err)
	require.False(t, got.ExpiresAt.IsZero(), "the viewer carries the token's expiry")
	require.False(t, got.IssuedAt.IsZero(), "the viewer carries the token's issue time (iat)")
	got.ExpiresAt, got.IssuedAt = time.Time{}, time.Time{}
	require.Equal(t, &viewer.Viewer{
		TenantID: "acme", UserID: "u7",
		Roles: []viewer.Role{viewer.RoleAgent}, Groups: []string{"eng", "ops"},
	}, got)

	// The token expires after its ttl (plus the leeway).
	late := newVerifier(t, auth.Config{
		HS256Secret: hsSecret,
		Now:         func() time.Time { return time.Now().Add(time.Hour + auth.DefaultLeeway + time.Minute) },
	})
	_, err = late.Verify(context.Background(), tok)
	requireUnauthenticated(t, err, "token expired", tok)

	// Another secret does not verify it.
	other := newVerifier(t, auth.Config{HS256Secret: []byte("another-secret-another-secret-00")})
	_, err = other.Verify(context.Background(), tok)
	requireUnauthenticated(t, err, "invalid token", tok)
}

func TestIssuerRefusesWhatVerifyRejects(t *testing.T) {
	valid := auth.Claims{Tenant: "acme", RegisteredClaims: jwt.RegisteredClaims{Subject: "u1"}}
	tests := []struct {
		name   string
		secret []byte
		edit   func(c *auth.Claims)
		ttl    time.Duration
	}{
		{"short secret", []byte("short"), func(*auth.Claims) {}, time.Hour},
		{"zero ttl", hsSecret, func(*auth.Claims) {}, 0},
		{"no subject", hsSecret, func(c *auth.Claims) { c.Subject = "" }, time.Hour},
		{"no tenant", hsSecret, func(c *auth.Claims) { c.Tenant = "" }, time.Hour},
		{"bad tenant", hsSecret, func(c *auth.Claims) { c.Tenant = "Not A Key" }, time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid
			tt.edit(&c)
			_, err := auth.NewDevIssuer(tt.secret, "").Mint(c, tt.ttl)
			require.Error(t, err)
		})
	}
	_, err := auth.NewDevIssuer(hsSecret, "").Mint(valid, time.Minute)
	require.NoError(t, err)
}
