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
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// userClaims are claims() for another subject and groups.
func userClaims(sub string, groups ...string) jwt.MapClaims {
	c := claims()
	c["sub"] = sub
	c["groups"] = groups
	return c
}

// TestTokenCacheServesRepeatsUntilExpiry checks that a token sent again is
// answered without a second verification, and never after its expiry.
func TestTokenCacheServesRepeatsUntilExpiry(t *testing.T) {
	clock := newClock()
	v := newVerifier(t, auth.Config{HS256Secret: hsSecret, Now: clock.Now, Leeway: time.Second})
	tok := sign(t, jwt.SigningMethodHS256, hsSecret, "", claims()) // exp = base + 1h
	ctx := context.Background()

	for range 3 {
		vw, err := v.Verify(ctx, tok)
		require.NoError(t, err)
		require.Equal(t, "u1", vw.UserID)
	}
	require.EqualValues(t, 1, auth.FullVerifications(v), "repeats are served from the cache")
	require.Equal(t, 1, auth.CachedTokens(v))

	clock.Advance(time.Hour - time.Millisecond)
	_, err := v.Verify(ctx, tok)
	require.NoError(t, err)
	require.EqualValues(t, 1, auth.FullVerifications(v))

	// At exp the entry is dropped and the token verified again (accepted
	// within the leeway), then refused once the leeway has passed too.
	clock.Advance(time.Millisecond)
	_, err = v.Verify(ctx, tok)
	require.NoError(t, err)
	require.EqualValues(t, 2, auth.FullVerifications(v), "an entry is never used at or after exp")
	clock.Advance(2 * time.Second)
	_, err = v.Verify(ctx, tok)
	requireUnauthenticated(t, err, "token expired", tok)
	_, err = v.Verify(ctx, tok)
	requireUnauthenticated(t, err, "token expired", tok)
}

// TestTokenCacheRejectsOtherSignatures checks that a cached token's claims
// with any other signature are verified, and refused, in full.
func TestTokenCacheRejectsOtherSignatures(t *testing.T) {
	v := newVerifier(t, auth.Config{HS256Secret: hsSecret, Now: newClock().Now})
	ctx := context.Background()
	tok := sign(t, jwt.SigningMethodHS256, hsSecret, "", claims())
	_, err := v.Verify(ctx, tok)
	require.NoError(t, err)

	otherSecret := []byte(strings.Repeat("x", len(hsSecret)))
	forged := sign(t, jwt.SigningMethodHS256, otherSecret, "", claims())
	dot := strings.LastIndexByte(tok, '.')
	require.Equal(t, tok[:dot], forged[:strings.LastIndexByte(forged, '.')], "same header and claims")
	tests := []struct{ name, token string }{
		{"signed with another secret", forged},
		{"signature cut short", tok[:len(tok)-2]},
		{"no signature", tok[:dot+1]},
		{"cached signature on other claims", sign(t, jwt.SigningMethodHS256, hsSecret, "", userClaims("u2"))[:strings.LastIndexByte(sign(t, jwt.SigningMethodHS256, hsSecret, "", userClaims("u2")), '.')] + tok[dot:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := auth.FullVerifications(v)
			_, err := v.Verify(ctx, tt.token)
			require.Error(t, err)
			var de *domain.Error
			require.ErrorAs(t, err, &de)
			require.Equal(t, domain.CodeUnauthenticated, de.Code)
			require.Equal(t, before+1, auth.FullVerifications(v), "verified in full")
		})
	}
	require.Equal(t, 1, auth.CachedTokens(v), "refused tokens are not cached")
}

// TestTokenCacheKeepsViewersApart checks that each token gets its own
// viewer, and that changing a returned viewer changes nothing for the next
// caller.
func TestTokenCacheKeepsViewersApart(t *testing.T) {
	v := newVerifier(t, auth.Config{HS256Secret: hsSecret, Now: newClock().Now})
	ctx := context.Background()
	toks := map[string]string{
		"u1": sign(t, jwt.SigningMethodHS256, hsSecret, "", userClaims("u1", "g1")),
		"u2": sign(t, jwt.SigningMethodHS256, hsSecret, "", userClaims("u2", "g2")),
	}
	for range 2 {
		for user, tok := range toks {
			vw, err := v.Verify(ctx, tok)
			require.NoError(t, err)
			require.Equal(t, user, vw.UserID)
			require.Equal(t, []string{"g" + user[1:]}, vw.Groups)
			require.Equal(t, []viewer.Role{viewer.RoleMember}, vw.Roles)
			// A caller scribbling on its viewer must not reach the cache.
			vw.UserID, vw.Groups[0], vw.Roles[0] = "mallory", "admins", viewer.RoleAdmin
		}
	}
	require.EqualValues(t, 2, auth.FullVerifications(v))
}

// TestTokenCacheIsBounded checks that the cache never holds more than its
// size, and that TokenCacheSize < 0 turns it off.
func TestTokenCacheIsBounded(t *testing.T) {
	tests := []struct {
		name      string
		size      int
		wantCache int
		wantFull  int64
	}{
		{"size 8", 8, 8, 40},    // 20 tokens verified twice: each evicted before its repeat
		{"size 32", 32, 20, 20}, // all fit: the repeats are hits
		{"off", -1, 0, 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newVerifier(t, auth.Config{HS256Secret: hsSecret, Now: newClock().Now, TokenCacheSize: tt.size})
			ctx := context.Background()
			var toks []string
			for i := range 20 {
				toks = append(toks, sign(t, jwt.SigningMethodHS256, hsSecret, "", userClaims(fmt.Sprintf("u%d", i))))
			}
			for range 2 {
				for i, tok := range toks {
					vw, err := v.Verify(ctx, tok)
					require.NoError(t, err)
					require.Equal(t, fmt.Sprintf("u%d", i), vw.UserID)
					require.LessOrEqual(t, auth.CachedTokens(v), max(tt.size, 0))
				}
			}
			require.Equal(t, tt.wantCache, auth.CachedTokens(v))
			require.Equal(t, tt.wantFull, auth.FullVerifications(v))
		})
	}
}

// TestTokenCacheOutlivesNoKeySet checks that with a JWKS a cached token is
// verified again once the key set is due for a refresh, so a key removed
// from the set stops verifying it.
func TestTokenCacheOutlivesNoKeySet(t *testing.T) {
	k := getKeys(t)
	srv := newJWKSServer(t, ecJWK("e1", &k.ec.PublicKey))
	clock := newClock()
	v := newVerifier(t, auth.Config{JWKSURL: srv.URL, Now: clock.Now, JWKSRefresh: 10 * time.Minute})
	ctx := context.Background()
	tok := sign(t, jwt.SigningMethodES256, k.ec, "e1", claims()) // exp = base + 1h

	_, err := v.Verify(ctx, tok)
	require.NoError(t, err)
	_, err = v.Verify(ctx, tok)
	require.NoError(t, err)
	require.EqualValues(t, 1, auth.FullVerifications(v))

	// The key is withdrawn; within the refresh interval neither new nor
	// cached verifications see that yet, after it both refuse.
	srv.set(200, ecJWK("e2", &k.ec.PublicKey))
	clock.Advance(10*time.Minute + time.Second)
	_, err = v.Verify(ctx, tok)
	require.Error(t, err)
	require.EqualValues(t, 2, auth.FullVerifications(v))
	require.Zero(t, auth.CachedTokens(v))
}
