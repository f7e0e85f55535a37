package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/ragchat/ragchat/internal/config"
)

// TestBrokerSecrets: RAGCHAT_BROKER_SECRET wins; in development without
// it, a secret is generated once in the data directory (mode 0600) and
// read back on the next start; production without it is refused.
func TestBrokerSecrets(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	dir := t.TempDir()
	load := func(t *testing.T, vars map[string]string) config.Config {
		t.Helper()
		vars["RAGCHAT_DATA_DIR"] = dir
		vars["DATABASE_URL"] = "postgres://u@db.example/ragchat"
		cfg, err := config.LoadFrom(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}

	const set = "0123456789abcdef0123456789abcdef-set"
	secret, previous, err := brokerSecrets(load(t, map[string]string{
		"RAGCHAT_BROKER_SECRET": set, "RAGCHAT_BROKER_SECRET_PREVIOUS": set + "-old",
	}), log)
	if err != nil || string(secret) != set || len(previous) != 1 || string(previous[0]) != set+"-old" {
		t.Fatalf("configured secrets: %q %q %v", secret, previous, err)
	}

	dev := load(t, map[string]string{})
	first, _, err := brokerSecrets(dev, log)
	if err != nil || len(first) < 32 {
		t.Fatalf("generated secret %q: %v", first, err)
	}
	st, err := os.Stat(filepath.Join(dir, "broker-dev-secret"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the generated secret's file: %v %v", st, err)
	}
	again, _, err := brokerSecrets(dev, log)
	if err != nil || string(again) != string(first) {
		t.Fatalf("the next start reads %q, want %q (%v)", again, first, err)
	}

	prod := dev
	prod.Env = config.Production
	if _, _, err := brokerSecrets(prod, log); err == nil {
		t.Fatal("production without RAGCHAT_BROKER_SECRET was accepted")
	}
}
