package auth_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/viewer"
)

const (
	testIssuer   = "https://idp.test"
	testAudience = "ragchat"
)

// checkedVerifier is an HS256 verifier that checks iss and aud, at base.
func checkedVerifier(t *testing.T) *auth.Verifier {
	return newVerifier(t, auth.Config{
		HS256Secret: hsSecret, Issuer: testIssuer, Audience: testAudience,
		Now: newClock().Now,
	})
}

// checkedClaims are claims() with the issuer and audience checkedVerifier
// expects.
func checkedClaims() jwt.MapClaims {
	c := claims()
	c["iss"], c["aud"] = testIssuer, testAudience
	return c
}

func TestVerifyValidatesRegisteredAndIdentityClaims(t *testing.T) {
	at := func(d time.Duration) int64 { return base.Add(d).Unix() }
	many := func(n int) []string {
		gs := make([]string, n)
		for i := range gs {
			gs[i] = fmt.Sprintf("g%d", i)
		}
		return gs
	}
	tests := []struct {
		name    string
		edit    func(c jwt.MapClaims)
		wantMsg string // "" means the token is accepted
	}{
		{"valid", func(jwt.MapClaims) {}, ""},
		{"expired within leeway", func(c jwt.MapClaims) { c["exp"] = at(-29 * time.Second) }, ""},
		{"expired beyond leeway", func(c jwt.MapClaims) { c["exp"] = at(-31 * time.Second) }, "token expired"},
		{"no exp", func(c jwt.MapClaims) { delete(c, "exp") }, "invalid token claims"},
		{"exp not a number", func(c jwt.MapClaims) { c["exp"] = "tomorrow" }, "malformed token"},
		{"nbf within leeway", func(c jwt.MapClaims) { c["nbf"] = at(29 * time.Second) }, ""},
		{"nbf beyond leeway", func(c jwt.MapClaims) { c["nbf"] = at(31 * time.Second) }, "token not yet valid"},
		{"iat beyond leeway", func(c jwt.MapClaims) { c["iat"] = at(31 * time.Second) }, "token not yet valid"},
		{"wrong issuer", func(c jwt.MapClaims) { c["iss"] = "https://evil.test" }, "invalid token issuer"},
		{"no issuer", func(c jwt.MapClaims) { delete(c, "iss") }, "invalid token claims"},
		{"wrong audience", func(c jwt.MapClaims) { c["aud"] = "other-app" }, "invalid token audience"},
		{"audience list containing ours", func(c jwt.MapClaims) { c["aud"] = []string{"other-app", testAudience} }, ""},
		{"audience list without ours", func(c jwt.MapClaims) { c["aud"] = []string{"a", "b"} }, "invalid token audience"},
		{"no audience", func(c jwt.MapClaims) { delete(c, "aud") }, "invalid token claims"},
		{"no sub", func(c jwt.MapClaims) { delete(c, "sub") }, "invalid token claims"},
		{"sub of 128 bytes", func(c jwt.MapClaims) { c["sub"] = strings.Repeat("u", 128) }, ""},
		{"sub of 129 bytes", func(c jwt.MapClaims) { c["sub"] = strings.Repeat("u", 129) }, "invalid token claims"},
		{"sub with a control character", func(c jwt.MapClaims) { c["sub"] = "u1\nadmin" }, "invalid token claims"},
		{"no tenant", func(c jwt.MapClaims) { delete(c, "tenant") }, "invalid token claims"},
		{"tenant as tid", func(c jwt.MapClaims) { delete(c, "tenant"); c["tid"] = "acme" }, ""},
		{"tenant and tid agree", func(c jwt.MapClaims) { c["tid"] = "acme" }, ""},
		{"tenant and tid disagree", func(c jwt.MapClaims) { c["tid"] = "globex" }, "invalid token claims"},
		{"tenant uppercase", func(c jwt.MapClaims) { c["tenant"] = "Acme" }, "invalid token claims"},
		{"tenant starts with digit", func(c jwt.MapClaims) { c["tenant"] = "1acme" }, "invalid token claims"},
		{"tenant with underscore", func(c jwt.MapClaims) { c["tenant"] = "ac_me" }, "invalid token claims"},
		{"tenant of 64 characters", func(c jwt.MapClaims) { c["tenant"] = "a" + strings.Repeat("b", 63) }, ""},
		{"tenant with digits and hyphens", func(c jwt.MapClaims) { c["tenant"] = "acme-2" }, ""},
		{"tenant of 65 characters", func(c jwt.MapClaims) { c["tenant"] = "a" + strings.Repeat("b", 64) }, "invalid token claims"},
		{"tenant not a string", func(c jwt.MapClaims) { c["tenant"] = 7 }, "malformed token"},
		{"100 groups", func(c jwt.MapClaims) { c["groups"] = many(100) }, ""},
		{"101 groups", func(c jwt.MapClaims) { c["groups"] = many(101) }, "invalid token claims"},
		{"group of 129 bytes", func(c jwt.MapClaims) { c["groups"] = []string{strings.Repeat("g", 129)} }, "invalid token claims"},
		{"roles not strings", func(c jwt.MapClaims) { c["roles"] = []int{1} }, "malformed token"},
	}
	v := checkedVerifier(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := checkedClaims()
			tt.edit(c)
			tok := sign(t, jwt.SigningMethodHS256, hsSecret, "", c)
			got, err := v.Verify(context.Background(), tok)
			if tt.wantMsg != "" {
				require.Nil(t, got)
				requireUnauthenticated(t, err, tt.wantMsg, tok)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got)
		})
	}
}

func TestVerifyMapsRolesAndGroups(t *testing.T) {
	tests := []struct {
		name       string
		roles      any // nil omits the claim
		groups     any
		wantRoles  []viewer.Role
		wantGroups []string
	}{
		{"no roles claim means member", nil, nil, []viewer.Role{viewer.RoleMember}, nil},
		{"empty roles means member", []string{}, nil, []viewer.Role{viewer.RoleMember}, nil},
		{"only unknown roles means member", []string{"root", "superuser"}, nil, []viewer.Role{viewer.RoleMember}, nil},
		{"unknown roles dropped", []string{"admin", "superuser", "agent", "ADMIN"}, nil, []viewer.Role{viewer.RoleAdmin, viewer.RoleAgent}, nil},
		{"duplicate roles collapse", []string{"agent", "agent"}, nil, []viewer.Role{viewer.RoleAgent}, nil},
		{"support role kept", []string{"support", "member"}, nil, []viewer.Role{viewer.RoleSupport, viewer.RoleMember}, nil},
		{"single role as a string", "admin", nil, []viewer.Role{viewer.RoleAdmin}, nil},
		{"groups deduplicated in order", nil, []string{"eng", "", "ops", "eng"}, []viewer.Role{viewer.RoleMember}, []string{"eng", "ops"}},
		{"single group as a string", nil, "eng", []viewer.Role{viewer.RoleMember}, []string{"eng"}},
	}
	v := checkedVerifier(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := checkedClaims()
			delete(c, "roles")
			if tt.roles != nil {
				c["roles"] = tt.roles
			}
			if tt.groups != nil {
				c["groups"] = tt.groups
			}
			got, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodHS256, hsSecret, "", c))
			require.NoError(t, err)
			require.False(t, got.ExpiresAt.IsZero(), "the viewer carries the token's expiry")
			got.ExpiresAt, got.IssuedAt = time.Time{}, time.Time{}
			require.Equal(t, &viewer.Viewer{TenantID: "acme", UserID: "u1", Roles: tt.wantRoles, Groups: tt.wantGroups}, got)
		})
	}
}

func TestVerifyRejectsMalformedInput(t *testing.T) {
	v := checkedVerifier(t)
	tests := []struct {
		name, token, wantMsg string
	}{
		{"empty", "", "missing token"},
		{"one segment", "abc", "malformed token"},
		{"garbage segments", "a.b.c", "malformed token"},
		{"too long", strings.Repeat("a", 20000) + ".b.c", "malformed token"},
		{"bearer prefix left on", "Bearer " + sign(t, jwt.SigningMethodHS256, hsSecret, "", checkedClaims()), "malformed token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tt.token)
			requireUnauthenticated(t, err, tt.wantMsg, tt.token)
		})
	}
}
