package portability_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestImportHostileChatGPT imports ChatGPT content made to be expensive
// or to trip the parser: each is refused with BAD_USER_INPUT naming the
// field (and the limit), or imports what it holds; none stores more than
// it says (the stored messages are counted).
func TestImportHostileChatGPT(t *testing.T) {
	ptr := func(s string) *string { return &s }
	// 50,000 nodes without a message in one chain of parents, then a
	// question: a mapping as deep as the content can make it.
	deep := map[string]gptNodeJSON{"n0": {}}
	for i := 1; i < 50000; i++ {
		deep[fmt.Sprintf("n%d", i)] = gptNodeJSON{Parent: ptr(fmt.Sprintf("n%d", i-1))}
	}
	deep["q"] = gptNodeJSON{Message: gptMsg("user", "at the bottom", 1), Parent: ptr("n49999")}
	// 3,000 questions, each after the one before.
	long := map[string]gptNodeJSON{"q0": {Message: gptMsg("user", "q", 1)}}
	for i := 1; i < 3000; i++ {
		long[fmt.Sprintf("q%d", i)] = gptNodeJSON{Message: gptMsg("user", "q", float64(i+1)), Parent: ptr(fmt.Sprintf("q%d", i-1))}
	}
	// Children lists that run in a circle, while the parents are a tree:
	// children only order siblings.
	circle := map[string]gptNodeJSON{
		"q": {Message: gptMsg("user", "question", 1), Children: []string{"a", "q"}},
		"a": {Message: gptMsg("assistant", "answer", 2), Parent: ptr("q"), Children: []string{"q", "a", "missing"}},
	}
	cases := []struct {
		name, content, field, limit string
		messages                    int // when it imports
	}{
		{name: "JSON nested 100,000 deep in a part", content: `[{"mapping": {"q": {"message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": [` +
			strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `]}}}}}]`, field: "content"},
		{name: "a chain of 50,000 nodes", content: gptExport(t, deep), messages: 1},
		{name: "3,000 messages", content: gptExport(t, long), field: "conversations[0].mapping", limit: "importMessages"},
		{name: "one string of 1.5 MiB", content: gptExport(t, map[string]gptNodeJSON{"q": {Message: gptMsg("user", strings.Repeat("長", 1<<19), 1)}}),
			field: "conversations[0].mapping.q", limit: "importMessageSize"},
		{name: "a node its own parent", content: `[{"mapping": {"q": {"message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["q"]}}, "parent": "q"}}}]`,
			field: "conversations[0].mapping.q"},
		{name: "children in a circle", content: gptExport(t, circle), messages: 2},
	}
	eachBackend(t, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ids, r := importContent(t, alice, "CHATGPT", tc.content, "")
				if tc.field == "" {
					if r != nil {
						t.Fatalf("import: %+v", r.Errors)
					}
					if _, _, contents := storedText(t, h, ids); len(contents) != tc.messages {
						t.Errorf("%d messages stored, want %d", len(contents), tc.messages)
					}
					return
				}
				if r == nil {
					t.Fatal("the import succeeded")
				}
				e := r.Errors[0]
				if e.Code() != "BAD_USER_INPUT" || e.Extensions["field"] != tc.field || (tc.limit != "" && e.Extensions["limit"] != tc.limit) {
					t.Errorf("%s field %v limit %v (%s), want BAD_USER_INPUT field %s limit %q", e.Code(), e.Extensions["field"], e.Extensions["limit"], e.Message, tc.field, tc.limit)
				}
			})
		}
	})
}
