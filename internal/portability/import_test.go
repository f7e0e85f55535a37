package portability_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestImportChatGPT imports a ChatGPT conversations.json with Chinese and
// English, a hidden system node, a code call and a tool result between
// two answer parts, and a regenerated answer (a branch). The system-only
// conversation is left out; the tree keeps both answers to the second
// question, the current leaf is the regenerated one, the split answer is
// one message, and the text is searchable by the message list.
func TestImportChatGPT(t *testing.T) {
	fixture, err := os.ReadFile("testdata/chatgpt.json")
	if err != nil {
		t.Fatal(err)
	}
	eachBackend(t, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		ids, r := importContent(t, alice, "CHATGPT", string(fixture), "")
		if r != nil {
			t.Fatalf("import: %+v", r.Errors)
		}
		if len(ids) != 2 {
			t.Fatalf("%d conversations, want 2 (the system-only one is left out)", len(ids))
		}
		for _, id := range ids {
			checkTree(t, h, id)
		}
		_, _, content := export(t, alice, ids[0], "JSON")
		got := shapeOf(t, content)
		want := shape{
			Title: "VPN 设备报错",
			Leaf:  5,
			Messages: []string{
				`1 USER parent=0 edited=0 "我的 VPN 设备连不上，报错 ERR_TLS_HANDSHAKE。"`,
				`2 ASSISTANT parent=1 edited=0 "请先检查系统时间是否正确。"`,
				`3 USER parent=2 edited=0 "The clock is right. What next?"`,
				`4 ASSISTANT parent=3 edited=0 "Reinstall the certificate."`,
				`5 ASSISTANT parent=3 edited=0 "Regenerated: renew the client certificate, then reconnect."`,
			},
		}
		if strings.Join(got.Messages, "\n") != strings.Join(want.Messages, "\n") || got.Title != want.Title || got.Leaf != want.Leaf {
			t.Errorf("imported tree:\n%s\nleaf %d title %q\nwant:\n%s\nleaf %d", strings.Join(got.Messages, "\n"), got.Leaf, got.Title, strings.Join(want.Messages, "\n"), want.Leaf)
		}
		var siblings struct {
			Conversation struct {
				CurrentPath struct {
					Edges []struct {
						Node struct {
							Content  string
							Siblings struct{ IDs []string }
						}
					}
				}
			}
		}
		servertest.MustDo(t, alice, `query($c: ID!) { conversation(id: $c) { currentPath(first: 10) { edges { node { content siblings { ids } } } } } }`,
			map[string]any{"c": ids[0]}, &siblings)
		edges := siblings.Conversation.CurrentPath.Edges
		if len(edges) != 4 || len(edges[3].Node.Siblings.IDs) != 2 {
			t.Errorf("current path %+v, want 4 messages ending in one of two answers", edges)
		}
		_, _, greeting := export(t, alice, ids[1], "MARKDOWN")
		if !strings.Contains(greeting, "# Greeting") || !strings.Contains(greeting, "Hi! 你好！") {
			t.Errorf("greeting:\n%s", greeting)
		}
	})
}

// TestImportBadRecord imports content whose first bad record is deep
// inside: BAD_USER_INPUT names it in extensions.field, and nothing is
// stored, not even the good conversations before it.
func TestImportBadRecord(t *testing.T) {
	good := `{"title": "ok", "mapping": {"q": {"message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["hi"]}}, "parent": null, "children": []}}}`
	doc := func(msgs string) string {
		return `{"version": "ragchat.conversation/v1", "conversation": {"title": "t"}, "messages": [` + msgs + `]}`
	}
	q := `{"id": "1", "parentId": null, "role": "USER", "content": "问题"}`
	cases := []struct {
		name, format, content, field, limit string
	}{
		{"a parent missing from the mapping", "CHATGPT", `[` + good + `, {"mapping": {"x": {"message": null, "parent": "nowhere", "children": []}}}]`, "conversations[1].mapping.x", ""},
		{"a cycle", "CHATGPT", `[{"mapping": {"a": {"parent": "b"}, "b": {"parent": "a"}}}]`, "conversations[0].mapping.a", ""},
		{"an unknown current node", "CHATGPT", `[{"current_node": "z", "mapping": {}}]`, "conversations[0].current_node", ""},
		{"not an array", "CHATGPT", `{"mapping": {}}`, "content", ""},
		{"a NUL character", "CHATGPT", `[{"mapping": {"q": {"message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["a\u0000b"]}}}}}]`, "conversations[0].mapping.q", ""},
		{"a parent that comes later", "RAGCHAT_JSON", doc(q) + "\n" + doc(q+`, {"id": "3", "parentId": "2", "role": "ASSISTANT", "content": "a"}`), "conversations[1].messages[1].parentId", ""},
		{"an answer without a question", "RAGCHAT_JSON", doc(`{"id": "1", "role": "ASSISTANT", "content": "a"}`), "conversations[0].messages[0].parentId", ""},
		{"an unknown role", "RAGCHAT_JSON", doc(`{"id": "1", "role": "SYSTEM", "content": "a"}`), "conversations[0].messages[0].role", ""},
		{"another version", "RAGCHAT_JSON", `{"version": "v0", "messages": []}`, "conversations[0].version", ""},
		{"invalid JSON", "RAGCHAT_JSON", doc(q) + "\n{", "conversations[1]", ""},
		{"a title too long", "RAGCHAT_JSON", `{"version": "ragchat.conversation/v1", "conversation": {"title": "` + strings.Repeat("长", 86) + `"}, "messages": []}`, "conversations[0].conversation.title", "titleLength"},
		{"too many conversations", "RAGCHAT_JSON", strings.Repeat(doc(q)+"\n", 101), "conversations", "importConversations"},
		{"too large", "RAGCHAT_JSON", doc(`{"id": "1", "role": "USER", "content": "` + strings.Repeat("a", 2<<20) + `"}`), "content", "importSize"},
	}
	eachBackend(t, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		before := conversationCount(t, alice)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, r := importContent(t, alice, tc.format, tc.content, "")
				if r == nil {
					t.Fatal("the import succeeded")
				}
				e := r.Errors[0]
				if e.Code() != "BAD_USER_INPUT" || e.Extensions["field"] != tc.field {
					t.Errorf("%s field %v (%s), want BAD_USER_INPUT field %s", e.Code(), e.Extensions["field"], e.Message, tc.field)
				}
				if tc.limit != "" && e.Extensions["limit"] != tc.limit {
					t.Errorf("limit %v, want %s", e.Extensions["limit"], tc.limit)
				}
			})
		}
		if n := conversationCount(t, alice); n != before {
			t.Errorf("%d conversations after the refused imports, want %d", n, before)
		}
	})
}

// TestImportIdempotent replays an import with the same clientRequestId:
// the same conversations come back and nothing more is stored; the key
// with other content is IDEMPOTENCY_MISMATCH; another user's same key is
// that user's own import.
func TestImportIdempotent(t *testing.T) {
	content := `[{"title": "Once", "mapping": {"q": {"message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["only once"]}}, "parent": null, "children": []}}}]`
	eachBackend(t, func(t *testing.T, h *servertest.Harness) {
		alice, bob := h.Client(t, "alice"), h.Client(t, "bob")
		first, r := importContent(t, alice, "CHATGPT", content, "import-1")
		if r != nil {
			t.Fatal(r.Errors)
		}
		n := conversationCount(t, alice)
		again, r := importContent(t, alice, "CHATGPT", content, "import-1")
		if r != nil || len(again) != 1 || again[0] != first[0] {
			t.Fatalf("replay: %v %+v, want %v", again, r, first)
		}
		if m := conversationCount(t, alice); m != n {
			t.Errorf("%d conversations after the replay, want %d", m, n)
		}
		_, r = importContent(t, alice, "CHATGPT", strings.Replace(content, "only once", "other", 1), "import-1")
		if r == nil || r.Errors[0].Code() != "IDEMPOTENCY_MISMATCH" {
			t.Errorf("other content under the key: %+v", r)
		}
		theirs, r := importContent(t, bob, "CHATGPT", content, "import-1")
		if r != nil || len(theirs) != 1 || theirs[0] == first[0] {
			t.Errorf("bob's import: %v %+v", theirs, r)
		}
		servertest.MustDo(t, alice, `mutation($c: ID!) { deleteConversation(id: $c) { id } }`, map[string]any{"c": first[0]}, nil)
		_, r = importContent(t, alice, "CHATGPT", content, "import-1")
		if r == nil || r.Errors[0].Code() != "NOT_FOUND" {
			t.Errorf("the key of a deleted import: %+v", r)
		}
	})
}
