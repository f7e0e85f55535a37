package server_test

import (
	"testing"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// forkPathQuery reads a conversation's current branch with what a fork
// must carry over.
const forkPathQuery = `query($c: ID!) { conversation(id: $c) {
	id title forkedFromMessageId currentLeafId
	currentPath(last: 50) { totalCount edges { node { id role content depth
		attempt { status answer sources { label } } } } } } }`

type forkPath struct {
	Conversation struct {
		ID, Title           string
		ForkedFromMessageID *string
		CurrentLeafID       *string
		CurrentPath         struct {
			TotalCount int
			Edges      []struct {
				Node struct {
					ID, Role, Content string
					Depth             int
					Attempt           *struct {
						Status, Answer string
						Sources        []struct{ Label string }
					}
				}
			}
		}
	}
}

// TestForkOverGraphQL: forkConversation on an answer of an edited branch
// gives a new conversation whose current path is the source's path up to
// that answer (new ids, the same roles, contents, depths, answers and
// source labels), names its origin, and a replay of the key returns the
// same fork while the key on another message is IDEMPOTENCY_MISMATCH.
func TestForkOverGraphQL(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		conv := createConversation(t, alice)
		for _, q := range []string{"上传文件最大是多少？", "那超过以后返回什么错误码？", "退款多久到账？"} {
			waitDone(t, alice, ask(t, alice, conv, q))
		}
		var src forkPath
		mustDo(t, alice, forkPathQuery, map[string]any{"c": conv}, &src)
		edges := src.Conversation.CurrentPath.Edges
		if len(edges) != 6 {
			t.Fatalf("want 6 messages on the path, got %d", len(edges))
		}
		var edit struct {
			EditMessage struct{ Attempt struct{ ID string } }
		}
		mustDo(t, alice, `mutation($m: ID!) { editMessage(messageId: $m, question: "What is the upload limit?", clientMessageId: "fork-edit") { attempt { id } } }`,
			map[string]any{"m": edges[2].Node.ID}, &edit)
		waitDone(t, alice, edit.EditMessage.Attempt.ID)
		var branch forkPath
		mustDo(t, alice, forkPathQuery, map[string]any{"c": conv}, &branch)
		want := branch.Conversation.CurrentPath.Edges
		if len(want) != 4 || want[2].Node.Content != "What is the upload limit?" {
			t.Fatalf("the edited branch: %+v", want)
		}
		leaf := want[3].Node.ID

		fork := func(m, key string) string {
			var out struct{ ForkConversation struct{ ID string } }
			mustDo(t, alice, `mutation($m: ID!, $k: String) { forkConversation(messageId: $m, clientRequestId: $k) { id } }`,
				map[string]any{"m": m, "k": key}, &out)
			return out.ForkConversation.ID
		}
		id := fork(leaf, "fork-1")
		if id == conv {
			t.Fatal("the fork is the source conversation")
		}
		var got forkPath
		mustDo(t, alice, forkPathQuery, map[string]any{"c": id}, &got)
		c := got.Conversation
		if c.ForkedFromMessageID == nil || *c.ForkedFromMessageID != leaf {
			t.Errorf("forkedFromMessageId = %v, want %s", c.ForkedFromMessageID, leaf)
		}
		if c.Title != branch.Conversation.Title {
			t.Errorf("title %q, want the source's %q", c.Title, branch.Conversation.Title)
		}
		if c.CurrentPath.TotalCount != 4 || len(c.CurrentPath.Edges) != 4 {
			t.Fatalf("the fork's path: %d messages (%d)", len(c.CurrentPath.Edges), c.CurrentPath.TotalCount)
		}
		for i, e := range c.CurrentPath.Edges {
			w := want[i].Node
			n := e.Node
			if n.ID == w.ID || n.Role != w.Role || n.Content != w.Content || n.Depth != w.Depth {
				t.Errorf("message %d: %+v, want a copy of %+v", i, n, w)
			}
			if (n.Attempt == nil) != (w.Attempt == nil) {
				t.Errorf("message %d: attempt %v, want %v", i, n.Attempt, w.Attempt)
				continue
			}
			if n.Attempt != nil && (n.Attempt.Status != "COMPLETED" || n.Attempt.Answer != w.Attempt.Answer ||
				len(n.Attempt.Sources) != len(w.Attempt.Sources)) {
				t.Errorf("message %d: attempt %+v, want a copy of %+v", i, n.Attempt, w.Attempt)
			}
		}
		if c.CurrentLeafID == nil || *c.CurrentLeafID != c.CurrentPath.Edges[3].Node.ID {
			t.Errorf("the fork's leaf %v is not the copy of the forked answer", c.CurrentLeafID)
		}

		if again := fork(leaf, "fork-1"); again != id {
			t.Errorf("a replayed key made another fork: %s, want %s", again, id)
		}
		if code, _ := errorCode(t, alice, `mutation($m: ID!) { forkConversation(messageId: $m, clientRequestId: "fork-1") { id } }`,
			map[string]any{"m": edges[1].Node.ID}); code != "IDEMPOTENCY_MISMATCH" {
			t.Errorf("the key on another message: %s, want IDEMPOTENCY_MISMATCH", code)
		}
	})
}
