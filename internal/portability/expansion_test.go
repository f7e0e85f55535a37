package portability_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// gptNodeJSON is one node of a crafted ChatGPT mapping.
type gptNodeJSON struct {
	Message  any      `json:"message,omitempty"`
	Parent   *string  `json:"parent"`
	Children []string `json:"children,omitempty"`
}

// gptMsg is a node's message with role and text.
func gptMsg(role, text string, at float64) map[string]any {
	return map[string]any{
		"author":      map[string]any{"role": role},
		"content":     map[string]any{"content_type": "text", "parts": []string{text}},
		"create_time": at,
		"metadata":    map[string]any{},
	}
}

// gptExport is a conversations.json with one conversation of mapping.
func gptExport(t *testing.T, mapping map[string]gptNodeJSON) string {
	t.Helper()
	b, err := json.Marshal([]map[string]any{{"title": "crafted", "create_time": 1730000000.0, "mapping": mapping}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// answerLadder is a question followed by levels answers a1…an where each
// a(k) has two answer continuations, a(k+1) and a leaf b(k+1), each text
// size bytes long: the shape whose every alternative answer used to carry
// the text of all the answers before it.
func answerLadder(t *testing.T, levels, size int) (content string, texts []string) {
	t.Helper()
	text := func(name string) string {
		s := (name + " " + strings.Repeat("x", size))[:size]
		texts = append(texts, s)
		return s
	}
	ptr := func(s string) *string { return &s }
	m := map[string]gptNodeJSON{"q": {Message: gptMsg("user", text("question"), 1), Children: []string{"a1"}}}
	for k := 1; k <= levels; k++ {
		parent := "q"
		if k > 1 {
			parent = fmt.Sprintf("a%d", k-1)
		}
		a, b := fmt.Sprintf("a%d", k), fmt.Sprintf("b%d", k)
		var kids []string
		if k < levels {
			kids = []string{fmt.Sprintf("a%d", k+1), fmt.Sprintf("b%d", k+1)}
		}
		m[a] = gptNodeJSON{Message: gptMsg("assistant", text(a), float64(1+2*k)), Parent: ptr(parent), Children: kids}
		if k > 1 {
			m[b] = gptNodeJSON{Message: gptMsg("assistant", text(b), float64(2+2*k)), Parent: ptr(parent), Children: []string{}}
		}
	}
	return gptExport(t, m), texts
}

// storedText is the text the database holds for conversations ids: every
// message's content and every attempt's answer and question, in bytes.
func storedText(t *testing.T, h *servertest.Harness, ids []string) (messages, attempts int, contents []string) {
	t.Helper()
	var convs []uuid.UUID
	for _, id := range ids {
		convs = append(convs, uuid.MustParse(id))
	}
	ms, err := h.DB.Client.Message.Query().Where(message.ConversationIDIn(convs...)).All(sysCtx())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		messages += len(m.Content)
		contents = append(contents, m.Content)
	}
	as, err := h.DB.Client.Attempt.Query().Where(attempt.ConversationIDIn(convs...)).All(sysCtx())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range as {
		attempts += len(a.Answer) + len(a.OriginalQuestion)
	}
	return messages, attempts, contents
}

// storedRows counts every message and attempt in the database.
func storedRows(t *testing.T, h *servertest.Harness) int {
	t.Helper()
	m, err := h.DB.Client.Message.Query().Count(sysCtx())
	if err != nil {
		t.Fatal(err)
	}
	a, err := h.DB.Client.Attempt.Query().Count(sysCtx())
	if err != nil {
		t.Fatal(err)
	}
	return m + a
}

// TestImportChatGPTStoresLinearText imports a ChatGPT export in which
// every answer has two answer continuations (a ladder of 400 levels): the
// text the database then holds, counted from its rows, is within a small
// multiple of the input's size, and every input text is the content of
// exactly one message or part of one. (It used to copy every earlier
// answer in front of each alternative: quadratic, about 100 times the
// input here.)
func TestImportChatGPTStoresLinearText(t *testing.T) {
	content, texts := answerLadder(t, 400, 200)
	eachBackend(t, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		ids, r := importContent(t, alice, "CHATGPT", content, "")
		if r != nil {
			t.Fatalf("import: %+v", r.Errors)
		}
		msgs, atts, contents := storedText(t, h, ids)
		if total := msgs + atts; total > 3*len(content) {
			t.Errorf("stored %d bytes of text (%d in messages, %d in attempts) for %d bytes of input, want at most 3×", total, msgs, atts, len(content))
		}
		joined := strings.Join(contents, "\x00")
		for _, s := range texts {
			if n := strings.Count(joined, s); n != 1 {
				t.Errorf("%.20q… is stored %d times in messages, want once", s, n)
				break
			}
		}
		// 400 answers to the question: a(k) with b(k+1) appended, the
		// last one alone.
		if len(contents) != 1+400 {
			t.Errorf("%d messages, want 401", len(contents))
		}
	})
}

// TestImportTextBound refuses imports whose stored text would exceed the
// bounds (Limits.TextBytes over the whole import: messages, and each
// answer's attempt's copies of the answer and of its question;
// Limits.MessageBytes per message, after ChatGPT's answer parts are
// joined) with BAD_USER_INPUT naming the limit, before anything is
// written: no message or attempt is stored.
func TestImportTextBound(t *testing.T) {
	big := strings.Repeat("长", 400<<10/3) // 400 KiB, under the per-message bound
	ptr := func(s string) *string { return &s }
	// A 400 KiB question answered 30 times: 30 × 400 KiB of question
	// copies in the attempts.
	var msgs []string
	msgs = append(msgs, fmt.Sprintf(`{"id": "q", "role": "USER", "content": %q}`, big))
	gpt := map[string]gptNodeJSON{"q": {Message: gptMsg("user", big, 1)}}
	for i := 0; i < 30; i++ {
		msgs = append(msgs, fmt.Sprintf(`{"id": "a%d", "parentId": "q", "role": "ASSISTANT", "content": "answer %d"}`, i, i))
		gpt[fmt.Sprintf("a%d", i)] = gptNodeJSON{Message: gptMsg("assistant", fmt.Sprintf("answer %d", i), float64(2+i)), Parent: ptr("q")}
	}
	manyAnswers := `{"version": "ragchat.conversation/v1", "conversation": {"title": "t"}, "messages": [` + strings.Join(msgs, ",") + `]}`
	// Five answer parts of 120 KiB after a question, each the only
	// continuation of the one before: joined, 600 KiB in one message.
	parts := map[string]gptNodeJSON{"q": {Message: gptMsg("user", "question", 1)}}
	for i := 0; i < 5; i++ {
		parent := "q"
		if i > 0 {
			parent = fmt.Sprintf("p%d", i-1)
		}
		parts[fmt.Sprintf("p%d", i)] = gptNodeJSON{Message: gptMsg("assistant", strings.Repeat("p", 120<<10), float64(2+i)), Parent: ptr(parent)}
	}
	// Twenty conversations, each a 90 KiB question answered five times:
	// each within the bound, together over it.
	var docs []string
	for c := 0; c < 20; c++ {
		ms := []string{fmt.Sprintf(`{"id": "q", "role": "USER", "content": %q}`, strings.Repeat("q", 90<<10))}
		for i := 0; i < 5; i++ {
			ms = append(ms, fmt.Sprintf(`{"id": "a%d", "parentId": "q", "role": "ASSISTANT", "content": "answer"}`, i))
		}
		docs = append(docs, `{"version": "ragchat.conversation/v1", "conversation": {}, "messages": [`+strings.Join(ms, ",")+`]}`)
	}
	cases := []struct {
		name, format, content, field, limit string
	}{
		{"our JSON: a question answered many times", "RAGCHAT_JSON", manyAnswers, "content", "importText"},
		{"our JSON: conversations together", "RAGCHAT_JSON", strings.Join(docs, "\n"), "content", "importText"},
		{"ChatGPT: a question answered many times", "CHATGPT", gptExport(t, gpt), "content", "importText"},
		{"our JSON: one message too long", "RAGCHAT_JSON", `{"version": "ragchat.conversation/v1", "conversation": {}, "messages": [{"id": "q", "role": "USER", "content": "` + strings.Repeat("q", 600<<10) + `"}]}`, "conversations[0].messages[0].content", "importMessageSize"},
		{"ChatGPT: answer parts joined too long", "CHATGPT", gptExport(t, parts), "conversations[0].mapping.p0", "importMessageSize"},
	}
	eachBackend(t, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		before := storedRows(t, h)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, r := importContent(t, alice, tc.format, tc.content, "")
				if r == nil {
					t.Fatal("the import succeeded")
				}
				e := r.Errors[0]
				if e.Code() != "BAD_USER_INPUT" || e.Extensions["field"] != tc.field || e.Extensions["limit"] != tc.limit {
					t.Errorf("%s field %v limit %v (%s), want BAD_USER_INPUT field %s limit %s", e.Code(), e.Extensions["field"], e.Extensions["limit"], e.Message, tc.field, tc.limit)
				}
			})
		}
		if n := storedRows(t, h); n != before {
			t.Errorf("%d messages and attempts after the refused imports, want %d", n, before)
		}
	})
}
