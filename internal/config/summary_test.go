package config_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestSummaryNamesNoKey: the startup summary says where chat and
// embeddings go and whether each has a key, and prints no key, password or
// credential of an endpoint URL.
func TestSummaryNamesNoKey(t *testing.T) {
	t.Parallel()
	secrets := []string{"sk-chat-secret-1", "sk-embed-secret-2", "url-password-3", "query-key-4", "hs256-secret-0123456789abcdef0123456789", "db-password-5"}
	c, err := load(map[string]string{
		"OPENAI_BASE_URL":           "https://user:url-password-3@chat.example/v1",
		"OPENAI_API_KEY":            "sk-chat-secret-1",
		"OPENAI_EMBEDDING_BASE_URL": "http://embed.example:8080/v1?key=query-key-4",
		"OPENAI_EMBEDDING_API_KEY":  "sk-embed-secret-2",
		"OPENAI_EMBEDDING_MODEL":    "bge-m3",
		"RAGCHAT_JWT_HS256_SECRET":  "hs256-secret-0123456789abcdef0123456789",
		"DATABASE_URL":              "postgres://ragchat:db-password-5@db.example/ragchat",
		"RAGCHAT_BROKER_SECRET":     "broker-secret-0123456789abcdef0123456789",
	})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, a := range c.Summary() {
		fmt.Fprintf(&b, "%s=%s\n", a.Key, a.Value)
	}
	out := b.String()
	for _, s := range append(secrets, "broker-secret-0123456789abcdef0123456789") {
		if strings.Contains(out, s) {
			t.Errorf("the summary prints %q:\n%s", s, out)
		}
	}
	for _, want := range []string{"https://chat.example/v1", "embedding=bge-m3 at http://embed.example:8080/v1 (api key set)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
}
