package server_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestHiddenNodeErrorsAreIdentical: node(id) and nodes(ids) answer every
// id the viewer may not see (another tenant's, another user's, a deleted
// conversation's, an admin-only audit event), of every node type, with
// exactly the bytes they answer a random UUID with: message, code, path,
// locations, extensions. And they get there with the same statements, in
// number, text and arguments but the id: a hidden id is not found by the
// one privacy-filtered lookup that finds nothing for a random one, so its
// answer takes no longer (it used to cost a second statement, the load of
// the row that privacy then hid).
func TestHiddenNodeErrorsAreIdentical(t *testing.T) {
	record, stmts := newStmtRecorder()
	eachBackend(t, servertest.Options{Driver: record}, func(t *testing.T, h *servertest.Harness) {
		alice, sam := h.Client(t, "alice"), h.Client(t, "sam", "support")
		kept := answered(t, alice, "上传文件最大是多少？", true)
		gone := answered(t, alice, "退款多久到账？", true)
		keptGrant, goneGrant := request(t, sam, kept.Conversation, nil), request(t, sam, gone.Conversation, nil)
		// An admin read leaves an audit event, which members may not see.
		mustDo(t, h.Client(t, "root", "admin"), `query($c: ID!) { conversation(id: $c) { id } }`, map[string]any{"c": kept.Conversation}, nil)
		mustDo(t, alice, `mutation($c: ID!) { deleteConversation(id: $c) { id } }`, map[string]any{"c": gone.Conversation}, nil)

		sys := sysCtx()
		tenantRows := kept.ids()
		tenantRows["knowledge base"] = h.DB.Client.KnowledgeBase.Query().Order(knowledgebase.ByID()).FirstIDX(sys).String()
		tenantRows["document"] = h.DB.Client.Document.Query().Order(document.ByID()).FirstIDX(sys).String()
		tenantRows["audit event"] = h.DB.Client.AuditEvent.Query().Order(auditevent.ByID()).FirstIDX(sys).String()
		tenantRows["support grant"] = keptGrant.ID
		memberHidden := kept.ids()
		memberHidden["audit event"] = tenantRows["audit event"]
		memberHidden["support grant"] = keptGrant.ID
		deleted := gone.ids()
		deleted["support grant"] = goneGrant.ID

		probers := []struct {
			name         string
			tenant, user string
			client       *gqlclient.Client
			ids          map[string]string
		}{
			{"another tenant's admin", "globex", "mallory", gqlclient.New(h.URL, h.Token(t, "globex", "mallory", []string{"admin", "agent", "member"})), tenantRows},
			{"another member", "demo", "bob", h.Client(t, "bob", "agent"), memberHidden},
			{"the owner, after the delete", "demo", "alice", alice, deleted},
			{"an admin, after the delete", "demo", "root", h.Client(t, "root", "admin"), deleted},
		}
		queries := []string{
			`query($id: ID!) { node(id: $id) { id } }`,
			`query($id: ID!) { node(id: $id) { id ... on Attempt { answer } ... on Message { content } } }`,
			`query($id: ID!) { nodes(ids: [$id]) { id } }`,
		}
		for _, p := range probers {
			t.Run(p.name, func(t *testing.T) {
				kinds := make([]string, 0, len(p.ids))
				for k := range p.ids {
					kinds = append(kinds, k)
				}
				sort.Strings(kinds)
				// probe answers q for id and returns its errors and the
				// statements it sent, id left out.
				probe := func(q, id string) ([]json.RawMessage, []string) {
					stmts.take(p.tenant, p.user)
					errs := rawErrors(t, p.client, q, map[string]any{"id": id})
					return errs, withoutID(stmts.take(p.tenant, p.user), id)
				}
				for _, q := range queries {
					randomID := uuid.NewString()
					random, randomStmts := probe(q, randomID)
					if len(random) != 1 || !bytes.Contains(random[0], []byte(`"NOT_FOUND"`)) {
						t.Fatalf("%s with a random id: %s", q, random)
					}
					if len(randomStmts) == 0 {
						t.Errorf("%s with a random id sent no statement through Ent", q)
					}
					for _, kind := range kinds {
						got, gotStmts := probe(q, p.ids[kind])
						if len(got) != 1 || !bytes.Equal(got[0], random[0]) {
							t.Errorf("%s of a hidden %s:\n got  %s\n want %s", q, kind, jsonList(got), random[0])
						}
						if !slices.Equal(gotStmts, randomStmts) {
							t.Errorf("%s of a hidden %s sent other statements than for a random id:\n got  %d: %s\n want %d: %s",
								q, kind, len(gotStmts), strings.Join(gotStmts, "\n      "), len(randomStmts), strings.Join(randomStmts, "\n      "))
						}
					}
				}
			})
		}
	})
}

func jsonList(ms []json.RawMessage) string {
	b, _ := json.Marshal(ms)
	return string(b)
}
