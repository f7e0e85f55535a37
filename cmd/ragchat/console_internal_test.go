package main

import (
	"testing"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/webui"
)

// TestConsoleOptions checks that the development sign-in exists only when
// RAGCHAT_ENV=development, and that it mints tokens for the demo tenant's
// user (minted with the server's own secret).
func TestConsoleOptions(t *testing.T) {
	for _, env := range []string{"development", "production"} {
		t.Run(env, func(t *testing.T) {
			vars := map[string]string{
				"RAGCHAT_ENV":              env,
				"RAGCHAT_JWT_HS256_SECRET": "console-test-secret-0123456789abcdef",
				"RAGCHAT_DATA_DIR":         t.TempDir(),
			}
			cfg, err := config.LoadFrom(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
			if err != nil {
				t.Fatal(err)
			}
			o := consoleOptions(cfg)
			if env == "production" {
				if o.DevSignIn != nil {
					t.Fatal("the development sign-in is on in production")
				}
				return
			}
			if o.DevSignIn == nil {
				t.Fatal("no development sign-in in development")
			}
			tok, err := o.DevSignIn.Mint("demo-admin", []string{"admin"}, []string{"ops"}, webui.DevTokenTTL)
			if err != nil || tok == "" {
				t.Fatalf("mint: %v", err)
			}
		})
	}
}
