package auth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/auth"
)

func TestNewVerifierValidatesConfig(t *testing.T) {
	k := getKeys(t)
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	privDER, err := x509.MarshalPKCS8PrivateKey(k.rsa)
	require.NoError(t, err)
	rsaPEM := pkixPEM(t, &k.rsa.PublicKey)

	tests := []struct {
		name    string
		cfg     auth.Config
		wantErr bool
	}{
		{"no key source", auth.Config{}, true},
		{"secret and PEM", auth.Config{HS256Secret: hsSecret, PublicKeyPEM: rsaPEM}, true},
		{"secret and JWKS", auth.Config{HS256Secret: hsSecret, JWKSURL: "https://idp.test/jwks"}, true},
		{"PEM and JWKS", auth.Config{PublicKeyPEM: rsaPEM, JWKSURL: "https://idp.test/jwks"}, true},
		{"secret", auth.Config{HS256Secret: hsSecret}, false},
		{"short secret", auth.Config{HS256Secret: []byte("too-short")}, true},
		{"RSA PEM", auth.Config{PublicKeyPEM: rsaPEM}, false},
		{"EC PEM", auth.Config{PublicKeyPEM: pkixPEM(t, &k.ec.PublicKey)}, false},
		{"certificate PEM", auth.Config{PublicKeyPEM: certPEM(t, k.rsa)}, false},
		{"not PEM", auth.Config{PublicKeyPEM: []byte("not a key")}, true},
		{"private key PEM", auth.Config{PublicKeyPEM: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER})}, true},
		{"1024-bit RSA PEM", auth.Config{PublicKeyPEM: pkixPEM(t, &small.PublicKey)}, true},
		{"P-384 PEM", auth.Config{PublicKeyPEM: pkixPEM(t, &p384.PublicKey)}, true},
		{"JWKS https", auth.Config{JWKSURL: "https://idp.test/.well-known/jwks.json"}, false},
		{"JWKS http", auth.Config{JWKSURL: "http://127.0.0.1:8080/jwks"}, false},
		{"JWKS relative", auth.Config{JWKSURL: "/jwks"}, true},
		{"JWKS other scheme", auth.Config{JWKSURL: "file:///etc/jwks.json"}, true},
		{"negative leeway", auth.Config{HS256Secret: hsSecret, Leeway: -1}, true},
		{"negative refresh", auth.Config{JWKSURL: "https://idp.test/jwks", JWKSRefresh: -1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := auth.NewVerifier(tt.cfg)
			if tt.wantErr {
				require.Error(t, err)
				require.Nil(t, v)
				return
			}
			require.NoError(t, err)
			v.Close()
			v.Close() // idempotent
		})
	}
}

func TestVerifierKeepsItsOwnCopyOfTheSecret(t *testing.T) {
	secret := append([]byte(nil), hsSecret...)
	v := newVerifier(t, auth.Config{HS256Secret: secret, Now: newClock().Now})
	tok := sign(t, jwt.SigningMethodHS256, hsSecret, "", claims())
	secret[0] ^= 0xff
	_, err := v.Verify(t.Context(), tok)
	require.NoError(t, err)
}
