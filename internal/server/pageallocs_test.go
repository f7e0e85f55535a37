package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// maxPageAllocs bounds the heap allocations of one 50-message page served
// by the handler (authentication, the conversation, the keyset page,
// gqlgen's execution and the JSON response; no network, no client). It
// was 5,875 on PostgreSQL and 5,832 on SQLite when the bound was set, after
// the MessageEdge lists stopped starting a goroutine per edge and objects
// without @defer stopped building a deferred group (internal/gqlexec;
// 6,694 and 6,650 with the first change alone). The margin absorbs driver
// and runtime noise, not a regression of a few allocations per edge or
// node, which costs 50–100 or more a page.
const maxPageAllocs = 6500

// TestMessagePageAllocations serves the chat screen's page of 50 messages
// (the selection of BenchmarkMessagePage and `ragchat-bench --only page`)
// straight through the server's handler and bounds its allocations with
// testing.AllocsPerRun, on both backends. TestMessagePageQueryShape bounds
// its statements (two).
func TestMessagePageAllocations(t *testing.T) {
	const query = `query($c: ID!) { conversation(id: $c) { messages(last: 50) {
		edges { node { id sequenceNo role content createdAt } } pageInfo { hasPreviousPage startCursor } } } }`
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			h := servertest.Start(t, b, servertest.Options{})
			conv := seedMessages(t, h, "pager", 120)
			body, err := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"c": conv.String()}})
			if err != nil {
				t.Fatal(err)
			}
			token := h.Token(t, "demo", "pager", []string{"member"})
			handler := h.Server.Handler()
			serve := func() *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(string(body)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+token)
				rec := httptest.NewRecorder()
				handler.ServeHTTP(rec, req)
				return rec
			}
			rec := serve()
			var page struct {
				Errors []json.RawMessage
				Data   struct {
					Conversation struct {
						Messages struct {
							Edges []struct{ Node struct{ SequenceNo int } }
						}
					}
				}
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil || rec.Code != http.StatusOK || len(page.Errors) > 0 {
				t.Fatalf("page: %d %s (%v)", rec.Code, rec.Body.Bytes(), err)
			}
			if edges := page.Data.Conversation.Messages.Edges; len(edges) != 50 || edges[0].Node.SequenceNo != 71 || edges[49].Node.SequenceNo != 120 {
				t.Fatalf("page: %d edges %+v", len(edges), edges)
			}
			allocs := testing.AllocsPerRun(20, func() {
				if rec := serve(); rec.Code != http.StatusOK {
					t.Fatalf("page: %d %s", rec.Code, rec.Body.Bytes())
				}
			})
			t.Logf("%s: %.0f allocations per page", b.Name, allocs)
			if allocs > maxPageAllocs {
				t.Fatalf("%.0f allocations per page, want at most %d", allocs, maxPageAllocs)
			}
		})
	}
}
