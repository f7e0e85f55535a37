package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestGraphQLOverHTTPStatuses checks the GraphQL-over-HTTP status codes
// and response shapes (docs/API.md, "GraphQL over HTTP"): request errors
// are 200 with application/json and 400 with
// application/graphql-response+json, and have no data entry; a request
// without a document is 400; a mutation over GET is 405 with Allow: POST;
// an execution error keeps its data entry.
func TestGraphQLOverHTTPStatuses(t *testing.T) {
	h := start(t, servertest.Options{})
	token := h.Client(t, "alice").Token
	const gqlResponse = "application/graphql-response+json"
	cases := []struct {
		name, method, accept, query string
		status                      int
		allow                       string
		data                        bool
	}{
		{"parse error, json", http.MethodPost, "application/json", "{", http.StatusOK, "", false},
		{"parse error, graphql-response", http.MethodPost, gqlResponse, "{", http.StatusBadRequest, "", false},
		{"validation error, json", http.MethodPost, "application/json", "{ nope }", http.StatusOK, "", false},
		{"validation error, graphql-response", http.MethodPost, gqlResponse, "{ nope }", http.StatusBadRequest, "", false},
		{"validation error over GET, graphql-response", http.MethodGet, gqlResponse, "{ nope }", http.StatusBadRequest, "", false},
		{"no document", http.MethodPost, "application/json", "", http.StatusBadRequest, "", false},
		{"mutation over GET", http.MethodGet, "application/json", "mutation { createConversation(input: {}) { id } }", http.StatusMethodNotAllowed, http.MethodPost, false},
		{"execution error", http.MethodPost, gqlResponse, `{ node(id: "Q29udmVyc2F0aW9uOjA=") { id } }`, http.StatusOK, "", true},
		{"ok over GET", http.MethodGet, gqlResponse, "{ viewer { userId } }", http.StatusOK, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var req *http.Request
			if c.method == http.MethodGet {
				req, _ = http.NewRequestWithContext(ctxT(t), c.method, h.URL+"?"+url.Values{"query": {c.query}}.Encode(), nil)
			} else {
				body, _ := json.Marshal(map[string]any{"query": c.query})
				req, _ = http.NewRequestWithContext(ctxT(t), c.method, h.URL, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
			}
			req.Header.Set("Accept", c.accept)
			req.Header.Set("Authorization", "Bearer "+token)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			raw, _ := io.ReadAll(res.Body)
			var body map[string]json.RawMessage
			if err := json.Unmarshal(raw, &body); err != nil {
				t.Fatalf("%d %s", res.StatusCode, raw)
			}
			_, hasData := body["data"]
			if res.StatusCode != c.status || hasData != c.data || res.Header.Get("Allow") != c.allow {
				t.Fatalf("status %d (want %d), Allow %q (want %q), data %v (want %v): %s",
					res.StatusCode, c.status, res.Header.Get("Allow"), c.allow, hasData, c.data, raw)
			}
			if got := res.Header.Get("Content-Type"); got != c.accept {
				t.Fatalf("Content-Type %q, want %q", got, c.accept)
			}
		})
	}
}
