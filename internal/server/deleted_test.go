package server_test

import (
	"testing"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestSoftDeletedConversationIsGoneEverywhere: once a conversation is
// soft-deleted, every entry point that reaches one of its rows answers
// NOT_FOUND, for its owner and for the tenant's admin alike: attempt(id),
// conversation(id), node and nodes of each row, the retry, cancel and
// feedback mutations, and both subscriptions (a finished attempt is not
// replayed). The admin still lists it, with its messages, through
// adminConversations(where: {status: DELETED}); after a restore everything
// is back.
func TestSoftDeletedConversationIsGoneEverywhere(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		admin := h.Client(t, "root", "admin")
		rows := answered(t, alice, "上传文件最大是多少？", true)
		vars := map[string]any{"c": rows.Conversation, "a": rows.Attempt}
		mustDo(t, alice, `mutation($c: ID!) { deleteConversation(id: $c, reason: "privacy request") { id } }`, vars, nil)

		type call struct{ name, query string }
		reads := []call{
			{"attempt", `query($a: ID!) { attempt(id: $a) { id answer } }`},
			{"conversation", `query($c: ID!) { conversation(id: $c) { id title } }`},
		}
		for kind, id := range rows.ids() {
			v := map[string]any{"id": id}
			for _, q := range []string{`query($id: ID!) { node(id: $id) { id } }`, `query($id: ID!) { nodes(ids: [$id]) { id } }`} {
				for who, c := range clients(alice, admin) {
					r, err := c.Do(ctxT(t), q, v)
					if err != nil {
						t.Fatal(err)
					}
					if len(r.Errors) != 1 || r.Errors[0].Code() != "NOT_FOUND" || r.Errors[0].Message != "node not found" {
						t.Errorf("%s: %s of the %s: %s %+v", who, q, kind, r.Data, r.Errors)
					}
				}
			}
		}
		for who, c := range clients(alice, admin) {
			for _, rd := range reads {
				if code, e := errorCode(t, c, rd.query, vars); code != "NOT_FOUND" {
					t.Errorf("%s: %s: %s %+v", who, rd.name, code, e)
				}
			}
		}
		writes := []call{
			{"retryAttempt", `mutation($a: ID!) { retryAttempt(input: {attemptId: $a, clientRequestId: "again"}) { attempt { id } } }`},
			{"cancelAttempt", `mutation($a: ID!) { cancelAttempt(id: $a) { id } }`},
			{"submitFeedback", `mutation($a: ID!) { submitFeedback(input: {attemptId: $a, rating: UP}) { id } }`},
			{"ask", `mutation($c: ID!) { ask(input: {conversationId: $c, clientMessageId: "new", question: "退款多久到账？"}) { attempt { id } } }`},
			{"renameConversation", `mutation($c: ID!) { renameConversation(id: $c, title: "t") { id } }`},
			{"deleteConversation", `mutation($c: ID!) { deleteConversation(id: $c) { id } }`},
		}
		for _, w := range writes {
			if code, e := errorCode(t, alice, w.query, vars); code != "NOT_FOUND" {
				t.Errorf("owner: %s: %s %+v", w.name, code, e)
			}
		}
		for who, c := range clients(alice, admin) {
			for _, s := range []call{
				{"attemptEvents (replay)", servertest.AttemptEventsQuery},
				{"conversationEvents", `subscription($c: ID!) { conversationEvents(conversationId: $c) { kind } }`},
			} {
				codes, data := subscriptionErrors(t, c, s.query, vars)
				if data || len(codes) != 1 || codes[0] != "NOT_FOUND" {
					t.Errorf("%s: %s: data %v, codes %v", who, s.name, data, codes)
				}
			}
		}
		var own struct {
			Conversations struct{ TotalCount int }
		}
		mustDo(t, alice, `{ conversations(first: 10) { totalCount } }`, nil, &own)
		if own.Conversations.TotalCount != 0 {
			t.Errorf("the owner still lists %d conversations", own.Conversations.TotalCount)
		}

		// The admin's deliberate view of DELETED conversations shows them
		// whole.
		var listed struct {
			AdminConversations struct {
				Edges []struct {
					Node struct {
						ID       string
						Status   string
						Messages struct {
							Edges []struct{ Node struct{ ID, Content string } }
						}
					}
				}
			}
		}
		mustDo(t, admin, `{ adminConversations(first: 10, where: {status: DELETED}) { edges { node { id status messages(first: 10) { edges { node { id content } } } } } } }`, nil, &listed)
		if e := listed.AdminConversations.Edges; len(e) != 1 || e[0].Node.ID != rows.Conversation || len(e[0].Node.Messages.Edges) != 2 {
			t.Errorf("adminConversations(status: DELETED): %+v", listed)
		}

		mustDo(t, alice, `mutation($c: ID!) { restoreConversation(id: $c) { id } }`, vars, nil)
		for kind, id := range rows.ids() {
			var out struct{ Node *struct{ ID string } }
			mustDo(t, alice, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id}, &out)
			if out.Node == nil || out.Node.ID != id {
				t.Errorf("the %s is not back after restore", kind)
			}
		}
		mustDo(t, alice, `query($a: ID!) { attempt(id: $a) { id } }`, vars, nil)
	})
}

// clients names the clients of a test for its messages.
func clients(owner, admin *gqlclient.Client) map[string]*gqlclient.Client {
	return map[string]*gqlclient.Client{"owner": owner, "admin": admin}
}
