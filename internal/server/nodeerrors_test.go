package server_test

import (
	"bytes"
	"encoding/json"
	"sort"
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
// conversation's, an admin-only audit event) with exactly the bytes they
// answer a random UUID with: message, code, path, locations, extensions.
func TestHiddenNodeErrorsAreIdentical(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		kept := answered(t, alice, "上传文件最大是多少？", true)
		gone := answered(t, alice, "退款多久到账？", true)
		// An admin read leaves an audit event, which members may not see.
		mustDo(t, h.Client(t, "root", "admin"), `query($c: ID!) { conversation(id: $c) { id } }`, map[string]any{"c": kept.Conversation}, nil)
		mustDo(t, alice, `mutation($c: ID!) { deleteConversation(id: $c) { id } }`, map[string]any{"c": gone.Conversation}, nil)

		sys := sysCtx()
		tenantRows := kept.ids()
		tenantRows["knowledge base"] = h.DB.Client.KnowledgeBase.Query().Order(knowledgebase.ByID()).FirstIDX(sys).String()
		tenantRows["document"] = h.DB.Client.Document.Query().Order(document.ByID()).FirstIDX(sys).String()
		tenantRows["audit event"] = h.DB.Client.AuditEvent.Query().Order(auditevent.ByID()).FirstIDX(sys).String()
		memberHidden := kept.ids()
		memberHidden["audit event"] = tenantRows["audit event"]

		probers := []struct {
			name   string
			client *gqlclient.Client
			ids    map[string]string
		}{
			{"another tenant's admin", gqlclient.New(h.URL, h.Token(t, "globex", "mallory", []string{"admin", "agent", "member"})), tenantRows},
			{"another member", h.Client(t, "bob", "agent"), memberHidden},
			{"the owner, after the delete", alice, gone.ids()},
			{"an admin, after the delete", h.Client(t, "root", "admin"), gone.ids()},
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
				for _, q := range queries {
					random := rawErrors(t, p.client, q, map[string]any{"id": uuid.NewString()})
					if len(random) != 1 || !bytes.Contains(random[0], []byte(`"NOT_FOUND"`)) {
						t.Fatalf("%s with a random id: %s", q, random)
					}
					for _, kind := range kinds {
						got := rawErrors(t, p.client, q, map[string]any{"id": p.ids[kind]})
						if len(got) != 1 || !bytes.Equal(got[0], random[0]) {
							t.Errorf("%s of a hidden %s:\n got  %s\n want %s", q, kind, jsonList(got), random[0])
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
