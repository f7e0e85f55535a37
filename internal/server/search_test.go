package server_test

import (
	"testing"

	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/textsearch"
)

// Searching conversations through the API (docs/API.md, "Searching
// conversations"), on both backends.

const searchQuery = `query($q: String!, $first: Int, $after: Cursor) { searchConversations(query: $q, first: $first, after: $after) {
  totalCount pageInfo { hasNextPage endCursor }
  edges { cursor node { conversation { id } message { id } matchKind onCurrentBranch score snippet { text highlights { start end } } } } } }`

const adminSearchQuery = `query($q: String!, $u: String) { adminSearchConversations(query: $q, userId: $u) {
  totalCount edges { node { conversation { id } matchKind } } } }`

// searchHits is a searchConversations page as the API shows it.
type searchHits struct {
	TotalCount int
	PageInfo   struct {
		HasNextPage bool
		EndCursor   *string
	}
	Edges []struct {
		Cursor string
		Node   struct {
			Conversation    struct{ ID string }
			Message         *struct{ ID string }
			MatchKind       string
			OnCurrentBranch *bool
			Score           float64
			Snippet         struct {
				Text       string
				Highlights []struct{ Start, End int }
			}
		}
	}
}

// TestSearchConversations: an asked question and its streamed answer are
// searchable once committed (the PostgreSQL ask statement carries the
// tokens), only by their owner and the tenant's admins; a title is found;
// bad input is typed.
func TestSearchConversations(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, bob := h.Client(t, "alice"), h.Client(t, "bob")
		r := answered(t, alice, "上传文件最大是多少？", false)
		var ans struct {
			Attempt struct{ AssistantMessage struct{ Content string } }
		}
		mustDo(t, alice, `query($a: ID!) { attempt(id: $a) { assistantMessage { content } } }`, map[string]any{"a": r.Attempt}, &ans)

		got := organiseDo[searchHits](t, alice, searchQuery, map[string]any{"q": "上传文件"}, "searchConversations")
		if got.TotalCount != 1 || got.Edges[0].Node.Conversation.ID != r.Conversation || got.Edges[0].Node.MatchKind == "" {
			t.Fatalf("question search: %+v", got)
		}
		if n := got.Edges[0].Node; n.MatchKind == "MESSAGE" && (n.OnCurrentBranch == nil || !*n.OnCurrentBranch || len(n.Snippet.Highlights) == 0) {
			t.Errorf("message hit: %+v", n)
		}
		// A word only the answer has finds its message.
		terms := textsearch.Query(ans.Attempt.AssistantMessage.Content)
		if len(terms) == 0 {
			t.Fatalf("the answer %q has no terms", ans.Attempt.AssistantMessage.Content)
		}
		found := false
		for _, term := range terms {
			got = organiseDo[searchHits](t, alice, searchQuery, map[string]any{"q": term}, "searchConversations")
			for _, e := range got.Edges {
				if e.Node.Message != nil && e.Node.Message.ID == r.Answer {
					found = true
				}
			}
			if found {
				break
			}
		}
		if !found {
			t.Errorf("the answer %q is not searchable by any of its terms", ans.Attempt.AssistantMessage.Content)
		}

		titled := createTitled(t, alice, "VPN 设备排查")
		got = organiseDo[searchHits](t, alice, searchQuery, map[string]any{"q": "vpn 设备"}, "searchConversations")
		if got.TotalCount != 1 || got.Edges[0].Node.Conversation.ID != titled || got.Edges[0].Node.MatchKind != "TITLE" {
			t.Errorf("title search: %+v", got)
		}

		if got := organiseDo[searchHits](t, bob, searchQuery, map[string]any{"q": "上传文件"}, "searchConversations"); got.TotalCount != 0 {
			t.Errorf("bob found alice's conversation: %+v", got)
		}
		admin := h.Client(t, "carol", "admin")
		adm := organiseDo[searchHits](t, admin, adminSearchQuery, map[string]any{"q": "上传文件", "u": "alice"}, "adminSearchConversations")
		if adm.TotalCount != 1 || adm.Edges[0].Node.Conversation.ID != r.Conversation {
			t.Errorf("admin search: %+v", adm)
		}
		if e := organiseErr(t, alice, adminSearchQuery, map[string]any{"q": "x"}); e.Code() == "" {
			t.Errorf("a member's admin search: %+v", e)
		}
		wantBadInput(t, organiseErr(t, alice, searchQuery, map[string]any{"q": "  "}), "query", "")
		wantBadInput(t, organiseErr(t, alice, searchQuery, map[string]any{"q": "a", "first": 101}), "first", "searchPageSize")
	})
}
