package auth_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/viewer"
)

// keySource is one way to configure a Verifier, with a signer whose tokens
// it must accept.
type keySource struct {
	name   string
	cfg    auth.Config
	method jwt.SigningMethod
	key    any
	kid    string
}

// keySources returns every supported key source. The JWKS sources share
// one test server.
func keySources(t *testing.T) []keySource {
	k := getKeys(t)
	srv := newJWKSServer(t, rsaJWK("r1", &k.rsa.PublicKey), ecJWK("e1", &k.ec.PublicKey))
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&k.rsa.PublicKey)})
	return []keySource{
		{"HS256 secret", auth.Config{HS256Secret: hsSecret}, jwt.SigningMethodHS256, hsSecret, ""},
		{"RS256 PKIX PEM", auth.Config{PublicKeyPEM: pkixPEM(t, &k.rsa.PublicKey)}, jwt.SigningMethodRS256, k.rsa, ""},
		{"RS256 PKCS1 PEM", auth.Config{PublicKeyPEM: pkcs1}, jwt.SigningMethodRS256, k.rsa, ""},
		{"RS256 certificate", auth.Config{PublicKeyPEM: certPEM(t, k.rsa)}, jwt.SigningMethodRS256, k.rsa, ""},
		{"ES256 PKIX PEM", auth.Config{PublicKeyPEM: pkixPEM(t, &k.ec.PublicKey)}, jwt.SigningMethodES256, k.ec, ""},
		{"RS256 JWKS", auth.Config{JWKSURL: srv.URL}, jwt.SigningMethodRS256, k.rsa, "r1"},
		{"ES256 JWKS", auth.Config{JWKSURL: srv.URL}, jwt.SigningMethodES256, k.ec, "e1"},
	}
}

func TestVerifyAcceptsEveryKeySource(t *testing.T) {
	for _, src := range keySources(t) {
		t.Run(src.name, func(t *testing.T) {
			cfg := src.cfg
			cfg.Now = newClock().Now
			v := newVerifier(t, cfg)
			c := claims()
			c["roles"] = []string{"admin"}
			c["groups"] = []string{"eng"}
			got, err := v.Verify(context.Background(), sign(t, src.method, src.key, src.kid, c))
			require.NoError(t, err)
			require.False(t, got.ExpiresAt.IsZero(), "the viewer carries the token's expiry")
			got.ExpiresAt, got.IssuedAt = time.Time{}, time.Time{}
			require.Equal(t, &viewer.Viewer{
				TenantID: "acme", UserID: "u1",
				Roles: []viewer.Role{viewer.RoleAdmin}, Groups: []string{"eng"},
			}, got)
		})
	}
}

func TestVerifyRejectsForgedTokens(t *testing.T) {
	k := getKeys(t)
	rsaPEM := pkixPEM(t, &k.rsa.PublicKey)
	ecPEM := pkixPEM(t, &k.ec.PublicKey)
	for _, src := range keySources(t) {
		t.Run(src.name, func(t *testing.T) {
			cfg := src.cfg
			cfg.Now = newClock().Now
			v := newVerifier(t, cfg)
			forged := map[string]string{
				"alg none":                      unsignedNone(t, claims(), src.kid),
				"HS256 with RSA public key PEM": sign(t, jwt.SigningMethodHS256, rsaPEM, src.kid, claims()),
				"HS256 with EC public key PEM":  sign(t, jwt.SigningMethodHS256, ecPEM, src.kid, claims()),
				"HS256 with another secret":     sign(t, jwt.SigningMethodHS256, []byte(strings.Repeat("x", 32)), src.kid, claims()),
				"RS256 with another key":        sign(t, jwt.SigningMethodRS256, k.rsa2, src.kid, claims()),
				"ES256 with another key":        sign(t, jwt.SigningMethodES256, k.ec2, src.kid, claims()),
				"RS512 with the right key":      sign(t, jwt.SigningMethodRS512, k.rsa, src.kid, claims()),
				"tampered payload":              tamper(t, sign(t, src.method, src.key, src.kid, claims())),
			}
			// The right key id with another algorithm and key.
			switch src.method {
			case jwt.SigningMethodRS256:
				forged["ES256 on an RSA key"] = sign(t, jwt.SigningMethodES256, k.ec, src.kid, claims())
			case jwt.SigningMethodES256:
				forged["RS256 on an EC key"] = sign(t, jwt.SigningMethodRS256, k.rsa, src.kid, claims())
			}
			for name, tok := range forged {
				t.Run(name, func(t *testing.T) {
					_, err := v.Verify(context.Background(), tok)
					requireUnauthenticated(t, err, "invalid token", tok)
				})
			}
		})
	}
}

// tamper replaces the payload of tok with one naming another user and
// tenant, keeping the original header and signature.
func tamper(t *testing.T, tok string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	require.Len(t, parts, 3)
	c := claims()
	c["sub"], c["tenant"] = "root", "other"
	payload, err := json.Marshal(c)
	require.NoError(t, err)
	parts[1] = b64(payload)
	return strings.Join(parts, ".")
}
