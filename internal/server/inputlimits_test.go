package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// Configured limits above the old hard-coded ones (4,000 and 2,000), so a
// second check against a constant anywhere would show.
const (
	testQuestionChars = 4100
	testCommentChars  = 2100
	testDocumentBytes = 4096
)

// limitCase is one input at a boundary: ok, or refused with
// BAD_USER_INPUT naming field (and limit and max when limit is set).
type limitCase struct {
	name        string
	value       string
	ok          bool
	field       string
	limit       string
	max         int
	wantStored  *string // the value as saved, when it must be checked
	storedQuery string
}

func strPtr(s string) *string { return &s }

// TestInputLimitsAtTheBoundaries drives every engine-owned input limit
// through the GraphQL API at its boundary: exactly at the limit, one over,
// white space only, and padded with white space (limits count the trimmed
// text, which is what is saved). The configured question and comment
// limits apply as configured, with limit, max and field in extensions.
func TestInputLimitsAtTheBoundaries(t *testing.T) {
	o := servertest.Options{Config: func(c *config.Config) {
		c.Limits.MaxQuestionRunes = testQuestionChars
		c.Limits.MaxCommentRunes = testCommentChars
		c.Limits.MaxDocumentBytes = testDocumentBytes
	}}
	eachBackend(t, o, func(t *testing.T, h *servertest.Harness) {
		h.SetTenantSettings(t, "demo", func(s *domain.TenantSettings) { s.AskBurst = 1000 })
		c := h.Client(t, "limits-user")
		rated := answered(t, c, "上传文件最大是多少？", false)
		q := strings.Repeat("问", testQuestionChars)
		comment := strings.Repeat("评", testCommentChars)

		t.Run("question", func(t *testing.T) {
			conv := createConversation(t, c)
			run(t, []limitCase{
				{name: "at the limit", value: q, ok: true, wantStored: &q},
				{name: "one over", value: q + "问", field: "question", limit: "questionLength", max: testQuestionChars},
				{name: "white space only", value: " \n\t ", field: "question"},
				{name: "padded, at the limit", value: "  \n" + q + " \t", ok: true, wantStored: &q},
				{name: "padded, one over", value: " " + q + "问 ", field: "question", limit: "questionLength", max: testQuestionChars},
				{name: "NUL", value: "a\x00b", field: "question"},
			}, func(tc limitCase, i int) (*gqlclient.Response, string) {
				r := do(t, c, `mutation($c: ID!, $k: String!, $q: String!) { ask(input: {conversationId: $c, clientMessageId: $k, question: $q}) { userMessage { content } attempt { id } } }`,
					map[string]any{"c": conv, "k": fmt.Sprint("q", i), "q": tc.value})
				var out struct {
					Ask struct {
						UserMessage struct{ Content string }
						Attempt     struct{ ID string }
					}
				}
				if len(r.Errors) == 0 && r.Decode(&out) == nil {
					waitDone(t, c, out.Ask.Attempt.ID)
				}
				return r, out.Ask.UserMessage.Content
			})
		})
		t.Run("document size", func(t *testing.T) {
			curator := h.Client(t, "limits-curator", "agent")
			var kb struct{ CreateKnowledgeBase struct{ ID string } }
			mustDo(t, curator, `mutation { createKnowledgeBase(input: {name: "Limits"}) { id } }`, nil, &kb)
			doc := "# 限制\n\n" + strings.Repeat("文", (testDocumentBytes-len("# 限制\n\n"))/3)
			doc += strings.Repeat("a", testDocumentBytes-len(doc))
			run(t, []limitCase{
				{name: "at the limit", value: doc, ok: true},
				{name: "one over", value: doc + "b", field: "content", limit: "documentSize", max: testDocumentBytes},
			}, func(tc limitCase, i int) (*gqlclient.Response, string) {
				r := do(t, curator, `mutation($k: ID!, $t: String!, $c: String!) { ingestDocument(input: {knowledgeBaseId: $k, title: $t, content: $c}) { id } }`,
					map[string]any{"k": kb.CreateKnowledgeBase.ID, "t": fmt.Sprint("Doc ", i), "c": tc.value})
				return r, ""
			})
		})
		t.Run("feedback comment", func(t *testing.T) {
			run(t, []limitCase{
				{name: "at the limit", value: comment, ok: true, wantStored: &comment},
				{name: "one over", value: comment + "评", field: "comment", limit: "commentLength", max: testCommentChars},
				{name: "white space only means none", value: "  \n ", ok: true, wantStored: strPtr("")},
				{name: "padded, at the limit", value: "\n " + comment + "  ", ok: true, wantStored: &comment},
				{name: "padded, one over", value: " " + comment + "评\n", field: "comment", limit: "commentLength", max: testCommentChars},
			}, func(tc limitCase, _ int) (*gqlclient.Response, string) {
				r := do(t, c, `mutation($a: ID!, $m: String!) { submitFeedback(input: {attemptId: $a, rating: UP, comment: $m}) { comment } }`,
					map[string]any{"a": rated.Attempt, "m": tc.value})
				var out struct{ SubmitFeedback struct{ Comment *string } }
				_ = r.Decode(&out)
				if out.SubmitFeedback.Comment == nil {
					return r, ""
				}
				return r, *out.SubmitFeedback.Comment
			})
		})
		t.Run("feedback reason codes", func(t *testing.T) {
			eight := strings.Repeat("OTHER, ", 8)
			run(t, []limitCase{
				{name: "at the limit", value: eight, ok: true},
				{name: "one over", value: eight + "HELPFUL", field: "reasons", limit: "reasonCodes", max: 8},
			}, func(tc limitCase, _ int) (*gqlclient.Response, string) {
				return do(t, c, fmt.Sprintf(`mutation($a: ID!) { submitFeedback(input: {attemptId: $a, rating: UP, reasons: [%s]}) { id } }`, tc.value),
					map[string]any{"a": rated.Attempt}), ""
			})
		})
		t.Run("delete reason", func(t *testing.T) {
			run(t, []limitCase{
				{name: "one over", value: comment + "评", field: "reason", limit: "commentLength", max: testCommentChars},
				{name: "padded, one over", value: "  " + comment + "评  ", field: "reason", limit: "commentLength", max: testCommentChars},
				{name: "at the limit", value: comment, ok: true},
				{name: "padded, at the limit", value: " " + comment + "\n", ok: true},
				{name: "white space only", value: "   ", ok: true},
			}, func(tc limitCase, _ int) (*gqlclient.Response, string) {
				conv := createConversation(t, c)
				return do(t, c, `mutation($c: ID!, $r: String!) { deleteConversation(id: $c, reason: $r) { id } }`,
					map[string]any{"c": conv, "r": tc.value}), ""
			})
		})
		t.Run("title", func(t *testing.T) {
			ascii, han := strings.Repeat("t", 255), strings.Repeat("题", 85) // 255 bytes each
			cases := []limitCase{
				{name: "at the limit", value: ascii, ok: true, wantStored: &ascii},
				{name: "at the limit, multi-byte", value: han, ok: true, wantStored: &han},
				{name: "one over", value: ascii + "t", field: "title", limit: "titleLength", max: 255},
				{name: "one over, multi-byte", value: han + "题", field: "title", limit: "titleLength", max: 255},
				{name: "padded, at the limit", value: "  " + ascii + "\n", ok: true, wantStored: &ascii},
			}
			conv := createConversation(t, c)
			run(t, cases, func(tc limitCase, _ int) (*gqlclient.Response, string) {
				r := do(t, c, `mutation($c: ID!, $t: String!) { renameConversation(id: $c, title: $t) { title } }`, map[string]any{"c": conv, "t": tc.value})
				var out struct{ RenameConversation struct{ Title string } }
				_ = r.Decode(&out)
				return r, out.RenameConversation.Title
			})
			run(t, append(cases, limitCase{name: "white space only", value: " \t", ok: true}), func(tc limitCase, _ int) (*gqlclient.Response, string) {
				r := do(t, c, `mutation($t: String!) { createConversation(input: {title: $t}) { title } }`, map[string]any{"t": tc.value})
				var out struct{ CreateConversation struct{ Title string } }
				_ = r.Decode(&out)
				return r, out.CreateConversation.Title
			})
		})
		t.Run("report period", func(t *testing.T) {
			admin := h.Client(t, "root", "admin")
			run(t, []limitCase{
				{name: "366 days", value: "2026-01-02T00:00:00Z", ok: true},
				{name: "one second more", value: "2026-01-02T00:00:01Z", field: "from"},
				{name: "empty", value: "2025-01-01T00:00:00Z", field: "to"},
			}, func(tc limitCase, _ int) (*gqlclient.Response, string) {
				return do(t, admin, `query($f: Time!, $t: Time!) { usageSummary(from: $f, to: $t) { day } }`,
					map[string]any{"f": "2025-01-01T00:00:00Z", "t": tc.value}), ""
			})
		})
		t.Run("clientMessageId", func(t *testing.T) {
			key := strings.Repeat("k", 128)
			conv := createConversation(t, c)
			run(t, []limitCase{
				{name: "at the limit", value: key, ok: true},
				{name: "one over", value: key + "k", field: "clientMessageId", limit: "clientIdLength", max: 128},
				{name: "white space only", value: "  ", field: "clientMessageId"},
			}, func(tc limitCase, _ int) (*gqlclient.Response, string) {
				r := do(t, c, `mutation($c: ID!, $k: String!) { ask(input: {conversationId: $c, clientMessageId: $k, question: "退款多久到账？"}) { attempt { id } } }`,
					map[string]any{"c": conv, "k": tc.value})
				var out struct {
					Ask struct{ Attempt struct{ ID string } }
				}
				if len(r.Errors) == 0 && r.Decode(&out) == nil {
					waitDone(t, c, out.Ask.Attempt.ID)
				}
				return r, ""
			})
		})
	})
}

// do runs one operation and returns its response, failing only on
// transport errors.
func do(t *testing.T, c *gqlclient.Client, query string, vars map[string]any) *gqlclient.Response {
	t.Helper()
	r, err := c.Do(ctxT(t), query, vars)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// run checks each case: send returns the response and the stored value.
func run(t *testing.T, cases []limitCase, send func(tc limitCase, i int) (*gqlclient.Response, string)) {
	t.Helper()
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, stored := send(tc, i)
			if tc.ok {
				if len(r.Errors) > 0 {
					t.Fatalf("refused: %+v", r.Errors)
				}
				if tc.wantStored != nil && stored != *tc.wantStored {
					t.Fatalf("stored %d characters %q…, want %d", len([]rune(stored)), head(stored), len([]rune(*tc.wantStored)))
				}
				return
			}
			if len(r.Errors) != 1 {
				t.Fatalf("want one error, got %s %+v", r.Data, r.Errors)
			}
			e := r.Errors[0]
			ext := e.Extensions
			if e.Code() != "BAD_USER_INPUT" || ext["field"] != tc.field {
				t.Fatalf("got %s %q %+v, want BAD_USER_INPUT with field %s", e.Code(), e.Message, ext, tc.field)
			}
			if tc.limit != "" && (ext["limit"] != tc.limit || ext["max"] != float64(tc.max)) {
				t.Fatalf("extensions %+v, want limit %s and max %d", ext, tc.limit, tc.max)
			}
		})
	}
}

func head(s string) string {
	r := []rune(s)
	if len(r) > 12 {
		r = r[:12]
	}
	return string(r)
}
