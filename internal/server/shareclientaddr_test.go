package server_test

import (
	"net/http"
	"net/netip"
	"testing"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestShareReadsBehindAProxy: behind a trusted proxy (the test client's
// loopback address in RAGCHAT_TRUSTED_PROXIES) each reader named by
// X-Forwarded-For has its own share read bucket; without the setting the
// header is ignored and every reader shares the proxy's one bucket.
// Unknown tokens cost only the address's bucket.
func TestShareReadsBehindAProxy(t *testing.T) {
	const read = `query { sharedConversation(token: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA") { title } }`
	trusted := func(c *config.Config) {
		c.HTTP.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	}
	for _, tc := range []struct {
		name   string
		config func(*config.Config)
		// shared: whether a second reader shares the first one's bucket.
		shared bool
	}{
		{"trusted proxy", trusted, false},
		{"no trusted proxy", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, servertest.Options{Config: tc.config})
			anon := gqlclient.New(h.URL, "")
			from := func(addr string) string {
				t.Helper()
				_, r, err := anon.Post(ctxT(t), map[string]any{"query": read}, http.Header{"X-Forwarded-For": {"198.51.100.99, " + addr}})
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Errors) == 0 {
					t.Fatalf("an unknown token opened %s", r.Data)
				}
				return r.Errors[0].Code()
			}
			// The first reader spends the burst (it refills at 2 a
			// second meanwhile).
			for i := 0; from("203.0.113.1") != "RATE_LIMITED"; i++ {
				if i > 1000 {
					t.Fatal("the first reader is never limited")
				}
			}
			// Three reads of another reader right after: a shared bucket
			// refills one read per 500 ms, so it refuses at least one.
			limited := 0
			for range 3 {
				if from("203.0.113.2") == "RATE_LIMITED" {
					limited++
				}
			}
			if tc.shared != (limited > 0) {
				t.Fatalf("another reader was limited %d times of 3; shares the bucket: %v", limited, tc.shared)
			}
		})
	}
}
