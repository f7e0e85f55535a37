package portability_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestExportImportRoundTrip exports a conversation with two branches as
// JSON, imports it back and exports the copy: the same tree (roles,
// contents, parents, edits, sequence numbers, current leaf) modulo ids and
// times. The copy's answers have a COMPLETED attempt without sources whose
// manifest says imported, and the tree columns hold the invariants.
func TestExportImportRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		conv := servertest.CreateConversation(t, alice)
		first := answer(t, alice, conv, "上传文件最大是多少？")
		answer(t, alice, conv, "How do I reset the VPN <device>?")
		var q struct {
			Attempt struct{ UserMessage struct{ ID string } }
		}
		servertest.MustDo(t, alice, `query($a: ID!) { attempt(id: $a) { userMessage { id } } }`, map[string]any{"a": first}, &q)
		var ed struct {
			EditMessage struct{ Attempt struct{ ID string } }
		}
		servertest.MustDo(t, alice, `mutation($m: ID!) { editMessage(messageId: $m, question: "上传文件的大小限制？", clientMessageId: "edit-1") { attempt { id } } }`,
			map[string]any{"m": q.Attempt.UserMessage.ID}, &ed)
		if s := servertest.WaitDone(t, alice, ed.EditMessage.Attempt.ID); s != "COMPLETED" {
			t.Fatalf("edit ended %s", s)
		}

		name, ctype, content := export(t, alice, conv, "JSON")
		if !strings.HasSuffix(name, ".json") || ctype != "application/json" || strings.Count(content, "\n") != 1 {
			t.Errorf("filename %q, content type %q, %d lines", name, ctype, strings.Count(content, "\n"))
		}
		orig := shapeOf(t, content)
		n, err := h.DB.Client.Message.Query().Where(message.ConversationID(uuid.MustParse(conv))).Count(sysCtx())
		if err != nil {
			t.Fatal(err)
		}
		if len(orig.Messages) != n || n != 6 {
			t.Fatalf("export has %d messages, the conversation %d (want 6: two branches)", len(orig.Messages), n)
		}
		if !strings.Contains(content, `"sources":[{`) || !strings.Contains(content, "<device>") {
			t.Error("the export lacks the answers' sources or escapes HTML")
		}

		ids, r := importContent(t, alice, "RAGCHAT_JSON", content, "")
		if r != nil || len(ids) != 1 {
			t.Fatalf("import: %v %+v", ids, r)
		}
		_, _, again := export(t, alice, ids[0], "JSON")
		if got := shapeOf(t, again); !reflect.DeepEqual(got, orig) {
			t.Errorf("round trip changed the conversation:\n got %+v\nwant %+v", got, orig)
		}
		checkTree(t, h, ids[0])
		var doc struct {
			Messages []struct {
				Role     string
				Attempts []struct {
					Status   string
					Imported bool
					Sources  []json.RawMessage
				}
			}
		}
		if err := json.Unmarshal([]byte(again), &doc); err != nil {
			t.Fatal(err)
		}
		for _, m := range doc.Messages {
			if m.Role != "USER" {
				continue
			}
			if len(m.Attempts) != 1 || m.Attempts[0].Status != "COMPLETED" || !m.Attempts[0].Imported || len(m.Attempts[0].Sources) != 0 {
				t.Errorf("an imported question's attempts: %+v", m.Attempts)
			}
		}
		var cp struct {
			Conversation struct {
				CurrentPath struct {
					Edges []struct {
						Node struct {
							Role    string
							Attempt *struct {
								ID      string
								Sources []struct{ ID string }
							}
						}
					}
				}
			}
		}
		servertest.MustDo(t, alice, `query($c: ID!) { conversation(id: $c) { currentPath(first: 50) { edges { node { role attempt { id sources { id } } } } } } }`,
			map[string]any{"c": ids[0]}, &cp)
		answers := 0
		for _, e := range cp.Conversation.CurrentPath.Edges {
			if a := e.Node.Attempt; e.Node.Role == "ASSISTANT" && a != nil {
				answers++
				var d struct {
					AttemptDiagnostics struct{ ContextManifest struct{ Imported bool } }
				}
				servertest.MustDo(t, h.Client(t, "root", "admin"), `query($a: ID!) { attemptDiagnostics(id: $a) { contextManifest { imported } } }`,
					map[string]any{"a": a.ID}, &d)
				if !d.AttemptDiagnostics.ContextManifest.Imported || len(a.Sources) != 0 {
					t.Errorf("an imported answer: %+v, manifest %+v", a, d)
				}
			}
		}
		if answers != 1 { // the edited question's branch
			t.Errorf("%d answers on the imported current path, want 1", answers)
		}
		// The imported conversation takes new questions like any other.
		answer(t, alice, ids[0], "还有别的限制吗？")

		md, mtype, text := export(t, alice, conv, "MARKDOWN")
		if !strings.HasSuffix(md, ".md") || !strings.HasPrefix(mtype, "text/markdown") {
			t.Errorf("markdown filename %q, type %q", md, mtype)
		}
		for _, want := range []string{"## Current branch", "## Other branches", "上传文件的大小限制？", "上传文件最大是多少？", "Sources:"} {
			if !strings.Contains(text, want) {
				t.Errorf("the Markdown export lacks %q:\n%s", want, text)
			}
		}
	})
}

// checkTree checks the tree columns of conversation id: sequence numbers
// 1…n, depths one more than the parent's, last_sequence_no n and a
// current leaf among the messages.
func checkTree(t *testing.T, h *servertest.Harness, id string) {
	t.Helper()
	ctx := sysCtx()
	cid := uuid.MustParse(id)
	ms := h.DB.Client.Message.Query().Where(message.ConversationID(cid)).Order(message.BySequenceNo()).AllX(ctx)
	conv := h.DB.Client.Conversation.GetX(ctx, cid)
	depth := map[uuid.UUID]int{}
	for i, m := range ms {
		if m.SequenceNo != int64(i+1) {
			t.Errorf("message %d has sequence number %d", i, m.SequenceNo)
		}
		want := 0
		if m.ParentID != nil {
			d, ok := depth[*m.ParentID]
			if !ok {
				t.Errorf("message %d follows a later or missing message", i)
			}
			want = d + 1
		}
		if m.Depth != want {
			t.Errorf("message %d has depth %d, want %d", i, m.Depth, want)
		}
		depth[m.ID] = m.Depth
	}
	if conv.LastSequenceNo != int64(len(ms)) {
		t.Errorf("last_sequence_no %d, want %d", conv.LastSequenceNo, len(ms))
	}
	if conv.CurrentLeafID == nil {
		t.Error("no current leaf")
	} else if _, ok := depth[*conv.CurrentLeafID]; !ok {
		t.Error("the current leaf is not a message of the conversation")
	}
}

// TestExportMarksRevokedSources revokes the document an answer cites: the
// export keeps the source's label and marks it unavailable, without its
// snippet, title or document id.
func TestExportMarksRevokedSources(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *servertest.Harness) {
		alice, admin := h.Client(t, "alice"), h.Client(t, "root", "admin")
		conv := servertest.CreateConversation(t, alice)
		a := answer(t, alice, conv, "上传文件最大是多少？")
		var out struct {
			Attempt struct{ Sources []struct{ DocumentID string } }
		}
		servertest.MustDo(t, alice, `query($a: ID!) { attempt(id: $a) { sources { documentId } } }`, map[string]any{"a": a}, &out)
		if len(out.Attempt.Sources) == 0 {
			t.Fatal("the answer has no sources")
		}
		doc := out.Attempt.Sources[0].DocumentID
		servertest.MustDo(t, admin, `mutation($d: ID!) { setDocumentAcl(documentId: $d, acl: {visibility: RESTRICTED, groups: ["legal"]}) { id } }`,
			map[string]any{"d": doc}, nil)
		_, _, content := export(t, alice, conv, "JSON")
		var exp struct {
			Messages []struct {
				Attempts []struct {
					Sources []map[string]any
				}
			}
		}
		if err := json.Unmarshal([]byte(content), &exp); err != nil {
			t.Fatal(err)
		}
		revoked := 0
		for _, m := range exp.Messages {
			for _, at := range m.Attempts {
				for _, s := range at.Sources {
					if s["label"] == "" {
						t.Error("a source without its label")
					}
					if s["available"] == true {
						if s["documentId"] == doc {
							t.Errorf("a revoked source is available: %v", s)
						}
						continue
					}
					revoked++
					for _, k := range []string{"documentId", "documentTitle", "snippet"} {
						if _, ok := s[k]; ok {
							t.Errorf("an unavailable source carries %s: %v", k, s)
						}
					}
				}
			}
		}
		if revoked == 0 {
			t.Error("no source is marked unavailable")
		}
		if strings.Contains(content, doc) {
			t.Error("the export names the revoked document")
		}
	})
}

// TestExportOfHiddenConversations asks for conversations the viewer does
// not own (another user's, as that user's tenant admin and as a support
// agent), a deleted one and an unknown id: the same NOT_FOUND, byte for
// byte. A temporary conversation is refused with BAD_USER_INPUT on "id".
func TestExportOfHiddenConversations(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *servertest.Harness) {
		alice, bob := h.Client(t, "alice"), h.Client(t, "bob")
		admin, support := h.Client(t, "root", "admin"), h.Client(t, "sam", "support")
		bobs := servertest.CreateConversation(t, bob)
		deleted := servertest.CreateConversation(t, alice)
		servertest.MustDo(t, alice, `mutation($c: ID!) { deleteConversation(id: $c) { id } }`, map[string]any{"c": deleted}, nil)
		query := `query($c: ID!) { exportConversation(id: $c, format: JSON) { content } }`
		var want string
		for _, tc := range []struct {
			name string
			as   func() (string, string)
		}{
			{"another user's", func() (string, string) { return "alice", bobs }},
			{"as an admin", func() (string, string) { return "root", bobs }},
			{"as a support agent", func() (string, string) { return "sam", bobs }},
			{"deleted", func() (string, string) { return "alice", deleted }},
			{"unknown", func() (string, string) { return "alice", uuid.NewString() }},
		} {
			who, id := tc.as()
			c := map[string]*gqlclient.Client{"alice": alice, "root": admin, "sam": support}[who]
			code, e := servertest.ErrorCode(t, c, query, map[string]any{"c": id})
			if code != "NOT_FOUND" {
				t.Errorf("%s: %s", tc.name, code)
			}
			got, _ := json.Marshal(e)
			if want == "" {
				want = string(got)
			}
			if string(got) != want {
				t.Errorf("%s: %s, want %s", tc.name, got, want)
			}
		}
		temp := servertest.CreateConversation(t, alice)
		h.DB.Client.Conversation.UpdateOneID(uuid.MustParse(temp)).SetTemporaryExpiresAt(time.Now().Add(time.Hour)).ExecX(sysCtx())
		code, e := servertest.ErrorCode(t, alice, query, map[string]any{"c": temp})
		if code != "BAD_USER_INPUT" || e.Extensions["field"] != "id" {
			t.Errorf("temporary: %s %+v", code, e)
		}
	})
}
