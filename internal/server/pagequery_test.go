package server_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

// recordingDriver records the SQL text of the queries run for one user's
// requests.
type recordingDriver struct {
	dialect.Driver
	user string
	mu   *sync.Mutex
	qs   *[]string
}

func (d recordingDriver) Query(ctx context.Context, query string, args, v any) error {
	if vw := viewer.FromContext(ctx); vw != nil && vw.UserID == d.user {
		d.mu.Lock()
		*d.qs = append(*d.qs, query)
		d.mu.Unlock()
	}
	return d.Driver.Query(ctx, query, args, v)
}

// TestMessagePageQueryShape loads the chat screen's page of 50 messages
// (the selection `ragchat-bench --only page` measures) and checks the SQL
// it runs: two statements, the conversation and the keyset page, and the
// page without DISTINCT. Ent makes a query reached through an edge
// (conversation.QueryMessages) SELECT DISTINCT, which made PostgreSQL read
// and de-duplicate the whole conversation before the LIMIT instead of
// reading 51 rows from the (conversation_id, sequence_no) index.
func TestMessagePageQueryShape(t *testing.T) {
	const pageQuery = `query($c: ID!) { conversation(id: $c) { messages(last: 50) {
		edges { node { id sequenceNo role content createdAt } } pageInfo { hasPreviousPage startCursor } } } }`
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			var (
				mu sync.Mutex
				qs []string
			)
			h := servertest.Start(t, b, servertest.Options{
				Driver: func(d dialect.Driver) dialect.Driver {
					return recordingDriver{Driver: d, user: "pager", mu: &mu, qs: &qs}
				},
			})
			conv := seedMessages(t, h, "pager", 120)
			c := h.Client(t, "pager")
			var page struct {
				Conversation struct {
					Messages struct {
						Edges []struct {
							Node struct{ SequenceNo int }
						}
						PageInfo struct{ HasPreviousPage bool }
					}
				}
			}
			mu.Lock()
			qs = nil
			mu.Unlock()
			mustDo(t, c, pageQuery, map[string]any{"c": conv.String()}, &page)
			edges := page.Conversation.Messages.Edges
			if len(edges) != 50 || edges[0].Node.SequenceNo != 71 || edges[49].Node.SequenceNo != 120 || !page.Conversation.Messages.PageInfo.HasPreviousPage {
				t.Fatalf("page: %d edges, %+v", len(edges), page.Conversation.Messages.PageInfo)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(qs) != 2 {
				t.Fatalf("%d statements for the page, want 2 (conversation, messages):\n%s", len(qs), strings.Join(qs, "\n"))
			}
			for _, q := range qs {
				if strings.Contains(strings.ToUpper(q), "DISTINCT") {
					t.Errorf("the page runs a DISTINCT query:\n%s", q)
				}
			}
		})
	}
}
