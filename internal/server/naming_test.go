package server_test

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestSchemaNamesUseOneCasingForIDs walks the introspected schema and fails
// on any field, argument or input field that spells the acronyms ID or URI
// in capitals (conversationID, sourceURI, userIDIn): the whole schema,
// generated and hand-written parts alike, writes them as words
// (conversationId, sourceUri, userIdIn), see docs/API.md, "Naming". Only
// scalar type names (ID, UUID) are upper case.
func TestSchemaNamesUseOneCasingForIDs(t *testing.T) {
	h := start(t, servertest.Options{})
	alice := h.Client(t, "alice")
	s := introspect(t, alice)
	capitals := regexp.MustCompile(`ID|URI`)

	var bad []string
	checked := 0
	for _, ty := range s.Types {
		if strings.HasPrefix(ty.Name, "__") {
			continue
		}
		if ty.Kind != "SCALAR" && capitals.MatchString(ty.Name) {
			bad = append(bad, "type "+ty.Name)
		}
		for _, f := range ty.Fields {
			checked++
			if capitals.MatchString(f.Name) {
				bad = append(bad, ty.Name+"."+f.Name)
			}
			for _, a := range f.Args {
				checked++
				if capitals.MatchString(a.Name) {
					bad = append(bad, ty.Name+"."+f.Name+"("+a.Name+")")
				}
			}
		}
		for _, f := range ty.InputFields {
			checked++
			if capitals.MatchString(f.Name) {
				bad = append(bad, ty.Name+"."+f.Name)
			}
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("%d names spell ID or URI in capitals:\n  %s", len(bad), strings.Join(bad, "\n  "))
	}
	if checked < 500 {
		t.Fatalf("only %d names checked: the introspection is incomplete", checked)
	}
	for _, want := range [][2]string{
		{"Attempt", "conversationId"}, {"Message", "clientMessageId"},
		{"Document", "sourceUri"}, {"Conversation", "userId"}, {"Feedback", "userId"},
	} {
		s.field(t, want[0], want[1])
	}
}

// TestRenamedFieldsBindToEntFields reads and filters by renamed fields: the
// values come from the Ent fields they bind to (through field collection
// and the generated where-input unmarshalling).
func TestRenamedFieldsBindToEntFields(t *testing.T) {
	h := start(t, servertest.Options{})
	alice := h.Client(t, "alice")
	conv := createConversation(t, alice)
	att := ask(t, alice, conv, "上传文件最大是多少？")
	waitDone(t, alice, att)

	var out struct {
		Conversation struct {
			UserID, KnowledgeBaseID string
			Attempts                struct {
				Edges []struct {
					Node struct{ ConversationID, UserMessageID, ClientRequestID, TraceID string }
				}
			}
			Other struct{ TotalCount int }
		}
		KnowledgeBases struct {
			Edges []struct {
				Node struct {
					Documents struct {
						Edges []struct {
							Node struct{ SourceURI, KnowledgeBaseID string }
						}
					}
				}
			}
		}
	}
	mustDo(t, alice, `query($c: ID!) {
		conversation(id: $c) {
			userId knowledgeBaseId
			attempts(first: 5, where: {conversationId: $c, conversationIdIn: [$c], clientRequestIdNotNil: true}) {
				edges { node { conversationId userMessageId clientRequestId traceId } }
			}
			other: attempts(first: 5, where: {conversationIdNEQ: $c}) { totalCount }
		}
		knowledgeBases(first: 1) { edges { node {
			documents(first: 1, where: {sourceUriNEQ: "", knowledgeBaseIdNEQ: $c}) { edges { node { sourceUri knowledgeBaseId } } }
		} } }
	}`, map[string]any{"c": conv}, &out)

	c := out.Conversation
	if c.UserID != "alice" || c.KnowledgeBaseID == "" {
		t.Errorf("conversation userId %q, knowledgeBaseId %q", c.UserID, c.KnowledgeBaseID)
	}
	if len(c.Attempts.Edges) != 1 {
		t.Fatalf("attempts filtered by conversationId: %+v", c.Attempts)
	}
	if a := c.Attempts.Edges[0].Node; a.ConversationID != conv || a.UserMessageID == "" || a.ClientRequestID == "" || a.TraceID == "" {
		t.Errorf("attempt ids not bound: %+v", a)
	}
	if c.Other.TotalCount != 0 {
		t.Errorf("conversationIdNEQ matched %d attempts", c.Other.TotalCount)
	}
	if len(out.KnowledgeBases.Edges) == 0 || len(out.KnowledgeBases.Edges[0].Node.Documents.Edges) == 0 {
		t.Fatalf("no document filtered by sourceUriNEQ: %+v", out.KnowledgeBases)
	}
	if d := out.KnowledgeBases.Edges[0].Node.Documents.Edges[0].Node; d.SourceURI == "" || d.KnowledgeBaseID == "" {
		t.Errorf("document fields not bound: %+v", d)
	}
}
