package server_test

import (
	"fmt"
	"testing"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/server"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// connPage is a connection as the paging tests select it.
type connPage struct {
	TotalCount int
	Edges      []struct{ Node struct{ ID string } }
	PageInfo   struct{ HasNextPage, HasPreviousPage bool }
}

func (p connPage) check(t *testing.T, what string, edges int, next bool) {
	t.Helper()
	if len(p.Edges) != edges || p.PageInfo.HasNextPage != next {
		t.Errorf("%s: %d edges, hasNextPage %v; want %d, %v", what, len(p.Edges), p.PageInfo.HasNextPage, edges, next)
	}
}

// TestConnectionsWithoutPageSizeGetTheDefaultPage queries connections
// without first or last, at the root, nested beneath a list, inside a
// fragment and with a null variable: each answers its first
// DefaultPageSize rows with hasNextPage (before, the whole query failed
// with BAD_USER_INPUT, no path and data null). The cap still holds.
func TestConnectionsWithoutPageSizeGetTheDefaultPage(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			h := servertest.Start(t, b, servertest.Options{})
			alice := h.Client(t, "alice")
			for range server.DefaultPageSize + 5 {
				createConversation(t, alice)
			}
			curator := h.Client(t, "carol", "agent")
			var kb struct{ CreateKnowledgeBase struct{ ID string } }
			mustDo(t, curator, `mutation { createKnowledgeBase(input: {name: "Paging"}) { id } }`, nil, &kb)
			for i := range server.DefaultPageSize + 2 {
				mustDo(t, curator, `mutation($k: ID!, $t: String!, $c: String!) { ingestDocument(input: {knowledgeBaseId: $k, title: $t, content: $c}) { id } }`,
					map[string]any{"k": kb.CreateKnowledgeBase.ID, "t": fmt.Sprintf("Doc %d", i), "c": fmt.Sprintf("# Doc %d\n\nPage %d of the paging test.", i, i)}, nil)
			}

			const conn = `totalCount edges { node { id } } pageInfo { hasNextPage hasPreviousPage }`
			t.Run("root", func(t *testing.T) {
				var out struct{ Conversations connPage }
				mustDo(t, alice, `{ conversations { `+conn+` } }`, nil, &out)
				out.Conversations.check(t, "conversations", server.DefaultPageSize, true)
				if out.Conversations.TotalCount != server.DefaultPageSize+5 {
					t.Errorf("totalCount %d", out.Conversations.TotalCount)
				}
			})
			t.Run("null variable", func(t *testing.T) {
				var out struct{ Conversations connPage }
				mustDo(t, alice, `query($n: Int) { conversations(first: $n) { `+conn+` } }`, map[string]any{"n": nil}, &out)
				out.Conversations.check(t, "conversations(first: null)", server.DefaultPageSize, true)
			})
			t.Run("nested and in a fragment", func(t *testing.T) {
				var out struct {
					KnowledgeBases struct {
						Edges []struct {
							Node struct {
								ID        string
								Documents connPage
								Again     connPage
							}
						}
					}
				}
				mustDo(t, curator, `fragment D on KnowledgeBase { again: documents { `+conn+` } }
					{ knowledgeBases(first: 10) { edges { node { id documents { `+conn+` } ...D } } } }`, nil, &out)
				found := false
				for _, e := range out.KnowledgeBases.Edges {
					if e.Node.ID == kb.CreateKnowledgeBase.ID {
						found = true
						e.Node.Documents.check(t, "documents", server.DefaultPageSize, true)
						e.Node.Again.check(t, "documents in a fragment", server.DefaultPageSize, true)
					}
				}
				if !found {
					t.Fatalf("knowledge base not listed: %+v", out)
				}
			})
			t.Run("last and the cap still hold", func(t *testing.T) {
				var out struct{ Conversations connPage }
				mustDo(t, alice, `{ conversations(last: 3) { `+conn+` } }`, nil, &out)
				if len(out.Conversations.Edges) != 3 || !out.Conversations.PageInfo.HasPreviousPage {
					t.Errorf("last: 3 gave %+v", out.Conversations.PageInfo)
				}
				code, e := errorCode(t, alice, `{ conversations(first: 101) { totalCount } }`, nil)
				if code != "BAD_USER_INPUT" || e.Extensions["limit"] != "pageSize" {
					t.Errorf("first over the cap: %s %+v", code, e)
				}
			})
		})
	}
}

// TestMessagesWithoutPageSize is the reported case: Conversation.messages
// without first or last. With a maximum page size below the default, the
// default is capped to it.
func TestMessagesWithoutPageSize(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			h := servertest.Start(t, b, servertest.Options{Config: func(c *config.Config) { c.Limits.MaxPageSize = 3 }})
			alice := h.Client(t, "alice")
			conv := createConversation(t, alice)
			for _, q := range []string{"上传文件最大是多少？", "退款需要多久？"} {
				waitDone(t, alice, ask(t, alice, conv, q))
			}
			var out struct {
				Conversation struct {
					Messages connPage
					Attempts connPage
				}
			}
			mustDo(t, alice, `query($c: ID!) { conversation(id: $c) {
				messages { totalCount edges { node { id } } pageInfo { hasNextPage hasPreviousPage } }
				attempts { totalCount edges { node { id } } pageInfo { hasNextPage hasPreviousPage } } } }`,
				map[string]any{"c": conv}, &out)
			out.Conversation.Messages.check(t, "messages", 3, true)
			out.Conversation.Attempts.check(t, "attempts", 2, false)
			if out.Conversation.Messages.TotalCount != 4 {
				t.Errorf("messages totalCount %d", out.Conversation.Messages.TotalCount)
			}
		})
	}
}
