package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/persisted"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

// apq is the APQ extension of query's hash.
func apq(hash string) map[string]any {
	return map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}
}

// postJSON sends body and decodes the response.
func postJSON(t *testing.T, c *gqlclient.Client, body any) *gqlclient.Response {
	t.Helper()
	_, r, err := c.Post(ctxT(t), body, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// getJSON sends a GET with the query string q and decodes the response.
func getJSON(t *testing.T, c *gqlclient.Client, q url.Values) *gqlclient.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodGet, c.URL+"?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var r gqlclient.Response
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("GET %s: %d %s", q.Encode(), res.StatusCode, b)
	}
	return &r
}

// wantCode fails unless r's only error has code.
func wantCode(t *testing.T, what string, r *gqlclient.Response, code string) {
	t.Helper()
	if len(r.Errors) != 1 || r.Errors[0].Code() != code {
		t.Fatalf("%s: want %s, got %+v", what, code, r)
	}
}

// wantAlice fails unless r is alice's viewer.
func wantAlice(t *testing.T, what string, r *gqlclient.Response) {
	t.Helper()
	if len(r.Errors) > 0 || !strings.Contains(string(r.Data), `"alice"`) {
		t.Fatalf("%s: %+v", what, r)
	}
}

// TestPersistedQueriesAcrossReplicas registers a query through one
// instance and runs it by hash alone through another on the same
// database, on each backend; an unknown hash is Apollo's
// PERSISTED_QUERY_NOT_FOUND, and a wrong hash or an oversized query is
// PERSISTED_QUERY_INVALID and stores nothing.
func TestPersistedQueriesAcrossReplicas(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			a := servertest.Start(t, b, servertest.Options{})
			other := servertest.Start(t, testdb.Backend{}, servertest.Options{Beside: a})
			ca, cb := a.Client(t, "alice"), other.Client(t, "alice")
			query := "query Me { viewer { userId } }"
			hash := persisted.Hash(query)

			r := postJSON(t, cb, gqlclient.Request{Extensions: apq(hash)})
			wantCode(t, "unknown hash", r, "PERSISTED_QUERY_NOT_FOUND")
			if r.Errors[0].Message != "PersistedQueryNotFound" {
				t.Fatalf("unknown hash message %q", r.Errors[0].Message)
			}
			wantAlice(t, "register on A", postJSON(t, ca, gqlclient.Request{Query: query, Extensions: apq(hash)}))
			wantAlice(t, "hash only on B", postJSON(t, cb, gqlclient.Request{Extensions: apq(hash)}))
			wantAlice(t, "hash only on B over GET", getJSON(t, cb, url.Values{"extensions": {`{"persistedQuery":{"version":1,"sha256Hash":"` + hash + `"}}`}}))

			other2 := "{ viewer { tenantId } }"
			wantCode(t, "wrong hash", postJSON(t, ca, gqlclient.Request{Query: other2, Extensions: apq(hash[:63] + "0")}), persisted.CodeInvalid)
			huge := "{ viewer { userId } }" + strings.Repeat(" ", persisted.MaxQueryBytes)
			wantCode(t, "oversized", postJSON(t, ca, gqlclient.Request{Query: huge, Extensions: apq(persisted.Hash(huge))}), persisted.CodeInvalid)
			wantCode(t, "oversized is not stored", postJSON(t, cb, gqlclient.Request{Extensions: apq(persisted.Hash(huge))}), "PERSISTED_QUERY_NOT_FOUND")
			wantCode(t, "unknown documentId", postJSON(t, cb, map[string]any{"documentId": "nope"}), "PERSISTED_QUERY_NOT_FOUND")
		})
	}
}

// writeManifest writes a manifest file and returns its path.
func writeManifest(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "manifest.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPersistedOnlyMode runs a server with RAGCHAT_PERSISTED_ONLY and a
// manifest in Apollo's format and in Relay's: the manifest's documents run
// by APQ hash, by documentId, doc_id and id, over POST and GET; anything
// else (a full query, an unknown hash, a document that does not even
// parse) is PERSISTED_QUERY_NOT_ALLOWED, which proves the refusal comes
// before parsing.
func TestPersistedOnlyMode(t *testing.T) {
	query := "query Me { viewer { userId } }"
	hash := persisted.Hash(query)
	manifests := map[string]any{
		"apollo": map[string]any{"format": "apollo-persisted-query-manifest", "version": 1, "operations": []any{
			map[string]any{"id": hash, "name": "Me", "type": "query", "body": query},
		}},
		"relay": map[string]any{"relay-me-1": query},
	}
	for name, m := range manifests {
		t.Run(name, func(t *testing.T) {
			path := writeManifest(t, m)
			h := start(t, servertest.Options{Config: func(c *config.Config) {
				c.Limits.PersistedManifest = path
				c.Limits.PersistedOnly = true
			}})
			c := h.Client(t, "alice")
			id := hash
			if name == "relay" {
				id = "relay-me-1"
			}
			wantAlice(t, "APQ hash", postJSON(t, c, gqlclient.Request{Extensions: apq(hash)}))
			wantAlice(t, "APQ hash with its query", postJSON(t, c, gqlclient.Request{Query: query, Extensions: apq(hash)}))
			for _, key := range []string{"documentId", "doc_id", "id"} {
				wantAlice(t, key, postJSON(t, c, map[string]any{key: id}))
				wantAlice(t, key+" over GET", getJSON(t, c, url.Values{key: {id}}))
			}
			for what, body := range map[string]any{
				"full query":       gqlclient.Request{Query: query},
				"unknown hash":     gqlclient.Request{Extensions: apq(persisted.Hash("{ viewer { tenantId } }"))},
				"unknown document": map[string]any{"documentId": "nope"},
				"unparsable":       gqlclient.Request{Query: "{ viewer { "},
			} {
				wantCode(t, what, postJSON(t, c, body), persisted.CodeNotAllowed)
			}
			wantCode(t, "full query over GET", getJSON(t, c, url.Values{"query": {query}}), persisted.CodeNotAllowed)
		})
	}
}

// apqRows counts the shared APQ table's rows.
func apqRows(t *testing.T, h *servertest.Harness) int {
	t.Helper()
	n, err := h.DB.Client.PersistedQuery.Query().Count(viewer.SystemJobContext(ctxT(t), viewer.JobPersistedQueries))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOnlyViewersRegisterPersistedQueries, on each backend: a request
// without a token never writes the shared APQ table — a hash it does not
// know and a hash sent with its query (valid, or 64 KiB of text that
// does not parse) are PERSISTED_QUERY_NOT_SUPPORTED (message
// PersistedQueryNotSupported, which makes Apollo's link send the plain
// query) — but runs a query a viewer registered, by hash alone. A
// viewer's registration is stored only once its document parses and
// validates: a text that does not parse, or names an unknown field, is
// refused by GraphQL (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED)
// and leaves no row; a valid one runs and is stored.
func TestOnlyViewersRegisterPersistedQueries(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			h := servertest.Start(t, b, servertest.Options{})
			anon, alice := &gqlclient.Client{URL: h.URL}, h.Client(t, "alice")
			open := "query Open { __typename }"
			garbage := strings.Repeat("{", persisted.MaxQueryBytes-1)
			for _, c := range []struct {
				name  string
				c     *gqlclient.Client
				query string // "" sends the hash alone
				hash  string
				code  string
			}{
				{"anonymous unknown hash", anon, "", persisted.Hash(open), persisted.CodeNotSupported},
				{"anonymous registers a valid query", anon, open, persisted.Hash(open), persisted.CodeNotSupported},
				{"anonymous registers 64 KiB that does not parse", anon, garbage, persisted.Hash(garbage), persisted.CodeNotSupported},
				{"viewer registers a text that does not parse", alice, "query { viewer {", persisted.Hash("query { viewer {"), "GRAPHQL_PARSE_FAILED"},
				{"viewer registers an unknown field", alice, "query { nope }", persisted.Hash("query { nope }"), "GRAPHQL_VALIDATION_FAILED"},
				{"viewer registers a wrong hash", alice, open, persisted.Hash(open + " "), persisted.CodeInvalid},
			} {
				r := postJSON(t, c.c, gqlclient.Request{Query: c.query, Extensions: apq(c.hash)})
				wantCode(t, c.name, r, c.code)
				if c.code == persisted.CodeNotSupported && r.Errors[0].Message != "PersistedQueryNotSupported" {
					t.Fatalf("%s: message %q", c.name, r.Errors[0].Message)
				}
				if n := apqRows(t, h); n != 0 {
					t.Fatalf("%s: %d rows stored", c.name, n)
				}
			}
			wantCode(t, "the refused text is not known", postJSON(t, alice, gqlclient.Request{Extensions: apq(persisted.Hash("query { viewer {"))}), persisted.CodeNotFound)

			r := postJSON(t, alice, gqlclient.Request{Query: open, Extensions: apq(persisted.Hash(open))})
			if len(r.Errors) > 0 || !strings.Contains(string(r.Data), `"Query"`) {
				t.Fatalf("viewer registers: %+v", r)
			}
			if n := apqRows(t, h); n != 1 {
				t.Fatalf("a viewer's valid registration: %d rows", n)
			}
			r = postJSON(t, anon, gqlclient.Request{Extensions: apq(persisted.Hash(open))})
			if len(r.Errors) > 0 || !strings.Contains(string(r.Data), `"Query"`) {
				t.Fatalf("anonymous runs a registered hash: %+v", r)
			}
		})
	}
}
