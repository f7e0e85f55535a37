package auth_test

import (
	"context"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/ragchat/ragchat/internal/auth"
)

func BenchmarkVerify(b *testing.B) {
	k := getKeys(b)
	srv := newJWKSServer(b, rsaJWK("r1", &k.rsa.PublicKey), ecJWK("e1", &k.ec.PublicKey))
	benches := []struct {
		name   string
		cfg    auth.Config
		method jwt.SigningMethod
		key    any
		kid    string
	}{
		{"HS256", auth.Config{HS256Secret: hsSecret}, jwt.SigningMethodHS256, hsSecret, ""},
		{"RS256 PEM", auth.Config{PublicKeyPEM: pkixPEM(b, &k.rsa.PublicKey)}, jwt.SigningMethodRS256, k.rsa, ""},
		{"ES256 JWKS", auth.Config{JWKSURL: srv.URL}, jwt.SigningMethodES256, k.ec, "e1"},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			cfg := bb.cfg
			cfg.Now = newClock().Now
			v := newVerifier(b, cfg)
			tok := sign(b, bb.method, bb.key, bb.kid, claims())
			ctx := context.Background()
			for b.Loop() {
				if _, err := v.Verify(ctx, tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
