package server_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// Share links through the API (docs/API.md, "Share links"), on both
// backends. internal/sharing covers every audience, the frozen path, the
// read count and the rate limit against the engine; these check what a
// client sees, anonymous readers included.

const (
	createShare = `mutation($c: ID!, $m: ID!, $a: ShareLinkAudience!, $u: [String!]) {
		createShareLink(input: {conversationId: $c, upToMessageId: $m, audience: $a, users: $u}) { token url shareLink { id audience } } }`
	readShare = `query($t: String!) { sharedConversation(token: $t) { title messages { role content createdAt
		sources { label cited available title snippet } withheld withheldReason } } }`
)

// sharedWorld is alice's answered question and what it cited.
type sharedWorld struct {
	conv, answer, document string
}

func shareSetup(t *testing.T, h *servertest.Harness) sharedWorld {
	t.Helper()
	alice := h.Client(t, "alice")
	conv := createConversation(t, alice)
	att := ask(t, alice, conv, "上传文件最大是多少？")
	waitDone(t, alice, att)
	var out struct {
		Attempt struct {
			AssistantMessage struct{ ID string }
			Sources          []struct{ DocumentID string }
		}
	}
	mustDo(t, alice, `query($a: ID!) { attempt(id: $a) { assistantMessage { id } sources { documentId } } }`, map[string]any{"a": att}, &out)
	if len(out.Attempt.Sources) == 0 {
		t.Fatal("the answer has no sources")
	}
	return sharedWorld{conv: conv, answer: out.Attempt.AssistantMessage.ID, document: out.Attempt.Sources[0].DocumentID}
}

type shareCreated struct {
	Token, URL string
	ShareLink  struct{ ID, Audience string }
}

func createShareLink(t *testing.T, c *gqlclient.Client, w sharedWorld, audience string, users ...string) shareCreated {
	t.Helper()
	var out struct{ CreateShareLink shareCreated }
	vars := map[string]any{"c": w.conv, "m": w.answer, "a": audience}
	if users != nil {
		vars["u"] = users
	}
	mustDo(t, c, createShare, vars, &out)
	return out.CreateShareLink
}

type sharedView struct {
	SharedConversation struct {
		Title    string
		Messages []struct {
			Role, Content string
			Sources       []struct {
				Label          string
				Available      bool
				Title, Snippet *string
			}
			Withheld       bool
			WithheldReason *string
		}
	}
}

// TestShareLinksThroughTheAPI: a member of the tenant reads a TENANT
// link with its sources; an ACL change after sharing withholds the answer
// that cites it from a reader at once; PUBLIC links need the tenant setting and then work
// without a token; every refusal is byte-identical NOT_FOUND; without a
// token every other field stays refused.
func TestShareLinksThroughTheAPI(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, bob, dave := h.Client(t, "alice"), h.Client(t, "bob"), h.Client(t, "dave")
		curator := h.Client(t, "carol", "agent")
		anon := gqlclient.New(h.URL, "")
		eve := gqlclient.New(h.URL, h.Token(t, "globex", "eve", []string{"admin", "member"}))
		w := shareSetup(t, h)

		link := createShareLink(t, alice, w, "TENANT")
		if len(link.Token) != 43 || link.URL != "/s/"+link.Token || link.ShareLink.Audience != "TENANT" {
			t.Fatalf("created %+v", link)
		}
		var seen sharedView
		mustDo(t, bob, readShare, map[string]any{"t": link.Token}, &seen)
		msgs := seen.SharedConversation.Messages
		if len(msgs) != 2 || msgs[0].Role != "USER" || msgs[1].Role != "ASSISTANT" || len(msgs[1].Sources) == 0 {
			t.Fatalf("bob reads %+v", seen)
		}
		if s := msgs[1].Sources[0]; !s.Available || s.Title == nil || s.Snippet == nil {
			t.Fatalf("bob's first source %+v", s)
		}

		// The cited document becomes restricted after sharing: the answer is
		// withheld from bob, with nothing of it or its sources shown.
		mustDo(t, curator, `mutation($d: ID!) { setDocumentAcl(documentId: $d, acl: {visibility: RESTRICTED, groups: ["legal"]}) { id } }`,
			map[string]any{"d": w.document}, nil)
		r, err := bob.Do(ctxT(t), readShare, map[string]any{"t": link.Token})
		if err != nil || len(r.Errors) > 0 {
			t.Fatalf("bob rereads: %v %+v", err, r)
		}
		if strings.Contains(string(r.Data), `"available":true,"title":null`) {
			t.Fatalf("an available source without a title: %s", r.Data)
		}
		var again sharedView
		if err := json.Unmarshal(r.Data, &again); err != nil {
			t.Fatal(err)
		}
		if a := again.SharedConversation.Messages[1]; !a.Withheld || a.WithheldReason == nil ||
			*a.WithheldReason != "SOURCES_RESTRICTED" || a.Content != "" || len(a.Sources) != 0 {
			t.Fatalf("an answer citing a restricted source is shown: %+v", a)
		}

		// PUBLIC needs the tenant's setting.
		if code, _ := errorCode(t, alice, createShare, map[string]any{"c": w.conv, "m": w.answer, "a": "PUBLIC"}); code != string(domain.CodeBadUserInput) {
			t.Fatalf("PUBLIC with the setting off: %s", code)
		}
		h.SetTenantSettings(t, "demo", func(s *domain.TenantSettings) { s.PublicShareLinks = true })
		public := createShareLink(t, alice, w, "PUBLIC")
		var pub sharedView
		mustDo(t, anon, readShare, map[string]any{"t": public.Token}, &pub)
		if len(pub.SharedConversation.Messages) != 2 {
			t.Fatalf("the anonymous reader reads %+v", pub)
		}
		// No document is open to anonymous readers while publicShareSources
		// is off: the answer is withheld.
		if a := pub.SharedConversation.Messages[1]; !a.Withheld || a.Content != "" || len(a.Sources) != 0 {
			t.Fatalf("an anonymous reader reads an answer built from the tenant's documents: %+v", a)
		}

		users := createShareLink(t, alice, w, "USERS", "bob")
		revoked := createShareLink(t, alice, w, "TENANT")
		mustDo(t, alice, `mutation($id: ID!) { revokeShareLink(id: $id) { shareLink { revokedAt } } }`, map[string]any{"id": revoked.ShareLink.ID}, nil)
		mustDo(t, bob, readShare, map[string]any{"t": users.Token}, nil)

		ref := rawErrors(t, bob, readShare, map[string]any{"t": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"})
		if len(ref) != 1 || !bytes.Contains(ref[0], []byte(`"NOT_FOUND"`)) {
			t.Fatalf("an unknown token: %s", jsonList(ref))
		}
		denied := []struct {
			name  string
			c     *gqlclient.Client
			token string
		}{
			{"revoked", bob, revoked.Token},
			{"USERS, not listed", dave, users.Token},
			{"TENANT, anonymous", anon, link.Token},
			{"TENANT, another tenant", eve, link.Token},
			{"USERS, another tenant", eve, users.Token},
			{"malformed", bob, "x"},
		}
		for _, d := range denied {
			got := rawErrors(t, d.c, readShare, map[string]any{"t": d.token})
			if len(got) != 1 || !bytes.Equal(got[0], ref[0]) {
				t.Errorf("%s:\n got  %s\n want %s", d.name, jsonList(got), ref[0])
			}
		}
		h.SetTenantSettings(t, "demo", func(s *domain.TenantSettings) { s.PublicShareLinks = false })
		if got := rawErrors(t, anon, readShare, map[string]any{"t": public.Token}); len(got) != 1 || !bytes.Equal(got[0], ref[0]) {
			t.Errorf("PUBLIC after the setting went off: %s", jsonList(got))
		}

		// Only the owner sees or changes a link: everyone else gets the
		// NOT_FOUND of an unknown id.
		for name, c := range map[string]*gqlclient.Client{"bob": bob, "another tenant": eve} {
			t.Run(name, func(t *testing.T) {
				sameAsRandom(t, c, `mutation($id: ID!) { revokeShareLink(id: $id) { shareLink { id } } }`, "id", link.ShareLink.ID, nil)
				sameAsRandom(t, c, `mutation($id: ID!) { updateShareLink(id: $id, input: {audience: TENANT}) { shareLink { id } } }`, "id", link.ShareLink.ID, nil)
				sameAsRandom(t, c, `query($id: ID!) { node(id: $id) { id } }`, "id", link.ShareLink.ID, nil)
			})
		}
		var mine struct {
			MyShareLinks struct {
				TotalCount int
				Edges      []struct{ Node struct{ ID string } }
			}
		}
		mustDo(t, alice, `{ myShareLinks { totalCount edges { node { id } } } }`, nil, &mine)
		if mine.MyShareLinks.TotalCount != 4 || mine.MyShareLinks.Edges[0].Node.ID != revoked.ShareLink.ID {
			t.Errorf("alice's links: %+v", mine)
		}
		mustDo(t, bob, `{ myShareLinks { totalCount } }`, nil, &mine)
		if mine.MyShareLinks.TotalCount != 0 {
			t.Errorf("bob lists %d links", mine.MyShareLinks.TotalCount)
		}

		// Without a token only sharedConversation answers.
		for _, q := range []string{`{ conversations(first: 1) { totalCount } }`, `{ myShareLinks { totalCount } }`,
			`mutation($c: ID!, $m: ID!) { createShareLink(input: {conversationId: $c, upToMessageId: $m, audience: TENANT}) { token } }`} {
			vars := map[string]any{"c": w.conv, "m": w.answer}
			if !strings.Contains(q, "$c") {
				vars = nil
			}
			if code, _ := errorCode(t, anon, q, vars); code != string(domain.CodeUnauthenticated) {
				t.Errorf("anonymous %s: %s", q, code)
			}
		}
	})
}

// sharedAllowList is every field a share reader can reach: the types
// reachable from SharedConversation, and their fields.
var sharedAllowList = map[string][]string{
	"SharedConversation": {"messages", "title"},
	"SharedMessage":      {"content", "createdAt", "role", "sources", "withheld", "withheldReason"},
	"SharedSource":       {"available", "cited", "label", "snippet", "title"},
}

// TestSharedConversationSchemaIsAllowListed walks the schema from
// sharedConversation: every object type reachable must be a Shared* type
// of the allow-list, with exactly its fields, so nothing (owner, tenant,
// trace, model, manifest, feedback, attempt) can be added by accident.
func TestSharedConversationSchemaIsAllowListed(t *testing.T) {
	h := start(t, servertest.Options{})
	s := introspect(t, h.Client(t, "alice"))
	root := s.field(t, "Query", "sharedConversation")
	seen := map[string]bool{}
	queue := []string{root.Type.named().Name}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		ty := s.Types[name]
		if ty == nil {
			t.Fatalf("type %s is missing", name)
		}
		if ty.Kind == "SCALAR" || ty.Kind == "ENUM" {
			continue
		}
		want, ok := sharedAllowList[name]
		if !ok || !strings.HasPrefix(name, "Shared") {
			t.Errorf("type %s (%s) is reachable from sharedConversation but not allow-listed", name, ty.Kind)
			continue
		}
		var got []string
		for _, f := range ty.Fields {
			got = append(got, f.Name)
			queue = append(queue, f.Type.named().Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s has fields %v, the allow-list %v", name, got, want)
		}
	}
	for name := range sharedAllowList {
		if !seen[name] {
			t.Errorf("allow-listed type %s is not reachable", name)
		}
	}
}
