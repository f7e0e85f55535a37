package server_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// Privacy probes of the message-tree API (docs/API.md, "Message trees"):
// every new mutation and field answers a message or conversation the
// viewer may not see exactly as it answers a random id.

// treeProbes are the operations probed with a hidden id ($id) and, where
// they need one, a conversation of the prober's own ($own).
var treeProbes = []struct {
	name, query string
	own         bool
}{
	{"editMessage", `mutation($id: ID!) { editMessage(messageId: $id, question: "并发上限是多少？", clientMessageId: "probe-edit") { userMessage { id } attempt { id } } }`, false},
	{"selectBranch, own conversation", `mutation($id: ID!, $own: ID!) { selectBranch(conversationId: $own, messageId: $id) { id currentLeafId } }`, true},
	{"forkConversation", `mutation($id: ID!) { forkConversation(messageId: $id, clientRequestId: "probe-fork") { id } }`, false},
	{"ask with parentMessageId", `mutation($id: ID!, $own: ID!) { ask(input: {conversationId: $own, clientMessageId: "probe-ask", question: "hi", parentMessageId: $id}) { attempt { id } } }`, true},
	{"Message.siblings", `query($id: ID!) { node(id: $id) { id ... on Message { siblings { ids index count } } } }`, false},
	{"Message node", `query($id: ID!) { node(id: $id) { id ... on Message { parentId depth editedFromId content } } }`, false},
}

// conversationProbes take a hidden conversation id ($id) and, for
// selectBranch, a message of it ($m, hidden too).
var conversationProbes = []struct{ name, query string }{
	{"Conversation.currentPath", `query($id: ID!) { conversation(id: $id) { id currentPath(last: 50) { totalCount edges { node { id siblings { count } } } } } }`},
	{"selectBranch, hidden conversation", `mutation($id: ID!, $m: ID!) { selectBranch(conversationId: $id, messageId: $m) { id } }`},
}

// withoutPath is an error's JSON without its path (which names the field,
// the same for a hidden id as for a random one in one operation, but
// compared apart from it as the brief asks).
func withoutPath(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "path")
	b, _ := json.Marshal(m)
	return string(b)
}

// TestBranchProbesAreNotFound: editMessage, selectBranch,
// forkConversation, ask with parentMessageId, Message.siblings, a Message
// node and Conversation.currentPath answer a message (or conversation) of
// another tenant, of another user, of a deleted conversation (its owner
// asking) with the exact error JSON of a random id, NOT_FOUND; a
// currentPath cursor naming a hidden message gives the page of a random
// cursor; and nothing was written.
func TestBranchProbesAreNotFound(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		kept := seedTree(t, h, "alice", 100, 5)
		gone := seedTree(t, h, "alice", 100, 5)
		mustDo(t, alice, `mutation($c: ID!) { deleteConversation(id: $c) { id } }`, map[string]any{"c": gone.Conversation.String()}, nil)
		messagesBefore := h.DB.Client.Message.Query().CountX(sysCtx())
		conversationsBefore := h.DB.Client.Conversation.Query().CountX(sysCtx())

		// The other tenant has no knowledge base, so its admin has no
		// conversation of its own: the probes that need one run for the
		// other two.
		probers := []struct {
			name   string
			client *gqlclient.Client
			tree   seededTree
			hasOwn bool
		}{
			{"another tenant's admin", gqlclient.New(h.URL, h.Token(t, "globex", "mallory", []string{"admin", "agent", "member"})), kept, false},
			{"another member", h.Client(t, "bob", "agent"), kept, true},
			{"the owner, after the delete", alice, gone, true},
		}
		owned := 0
		for _, p := range probers {
			t.Run(p.name, func(t *testing.T) {
				// The prober's own conversation, answered once, so that its
				// current path is not empty.
				own := ""
				if p.hasOwn {
					own = answered(t, p.client, "上传文件最大是多少？", false).Conversation
					owned++
				}
				hidden := map[string]string{
					"root":        p.tree.Path[0].String(),
					"branch leaf": p.tree.Path[len(p.tree.Path)-1].String(),
				}
				for fork := range p.tree.Forks {
					hidden["branch point"] = fork.String()
					hidden["sibling"] = p.tree.Forks[fork].String()
					break
				}
				compare := func(name, query string, vars func(id string) map[string]any, ids map[string]string) {
					t.Helper()
					random := rawErrors(t, p.client, query, vars(uuid.NewString()))
					if len(random) != 1 || !bytes.Contains(random[0], []byte(`"NOT_FOUND"`)) {
						t.Errorf("%s with a random id: %s", name, jsonList(random))
						return
					}
					for kind, id := range ids {
						got := rawErrors(t, p.client, query, vars(id))
						if len(got) != 1 || withoutPath(t, got[0]) != withoutPath(t, random[0]) {
							t.Errorf("%s of a hidden %s:\n got  %s\n want %s", name, kind, jsonList(got), random[0])
						}
					}
				}
				for _, q := range treeProbes {
					if q.own && !p.hasOwn {
						continue
					}
					compare(q.name, q.query, func(id string) map[string]any {
						v := map[string]any{"id": id}
						if q.own {
							v["own"] = own
						}
						return v
					}, hidden)
				}
				for _, q := range conversationProbes {
					compare(q.name, q.query, func(id string) map[string]any {
						return map[string]any{"id": id, "m": p.tree.Path[0].String()}
					}, map[string]string{"conversation": p.tree.Conversation.String()})
				}
				if !p.hasOwn {
					return
				}
				// A cursor naming a hidden message pages the prober's own
				// path exactly like a random one: nothing.
				cursorPage := func(id string) string {
					body, _ := json.Marshal(gqlclient.Request{Query: currentPathQuery, Variables: map[string]any{
						"c": own, "last": 10, "before": depthCursor(t, id, 3)}})
					_, raw, err := p.client.PostRaw(ctxT(t), body, nil)
					if err != nil {
						t.Fatal(err)
					}
					return string(raw)
				}
				random := cursorPage(uuid.NewString())
				for kind, id := range hidden {
					if got := cursorPage(id); got != random {
						t.Errorf("currentPath before a hidden %s's cursor:\n got  %s\n want %s", kind, got, random)
					}
				}
			})
		}
		// Each prober created one conversation of its own, with one
		// question and its answer, nothing else.
		if n := h.DB.Client.Message.Query().CountX(sysCtx()); n != messagesBefore+2*owned {
			t.Errorf("%d messages after the probes, want %d", n, messagesBefore+2*owned)
		}
		if n := h.DB.Client.Conversation.Query().CountX(sysCtx()); n != conversationsBefore+owned {
			t.Errorf("%d conversations after the probes, want %d", n, conversationsBefore+owned)
		}
	})
}

// TestBranchesUnderSupportGrant: a support agent with an approved grant
// reads the current path and the siblings of every branch (the messages
// connection holds them all), and every tree write under the grant is
// refused exactly as for a random id, changing nothing.
func TestBranchesUnderSupportGrant(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, sam := h.Client(t, "alice"), h.Client(t, "sam", "support")
		tr := seedTree(t, h, "alice", 100, 5)
		conv := tr.Conversation.String()
		g := request(t, sam, conv, nil)
		if a := decide(t, alice, approveGrant, g.ID); a.Status != "APPROVED" {
			t.Fatalf("approve: %+v", a)
		}

		var p pathPage
		mustDo(t, sam, currentPathQuery, map[string]any{"c": conv, "last": 100}, &p)
		if got := p.ids(); len(got) != len(tr.Path) || got[0] != tr.Path[0].String() || p.Conversation.CurrentPath.TotalCount != len(tr.Path) {
			t.Fatalf("agent's current path: %d messages (totalCount %d), want %d", len(got), p.Conversation.CurrentPath.TotalCount, len(tr.Path))
		}
		var all struct {
			Conversation struct {
				Messages struct {
					TotalCount int
					Edges      []struct {
						Node struct {
							ID       string
							Siblings struct {
								IDs   []string
								Count int
							}
						}
					}
				}
			}
		}
		mustDo(t, sam, `query($c: ID!) { conversation(id: $c) { messages(first: 100) { totalCount edges { node { id siblings { ids count } } } } } }`,
			map[string]any{"c": conv}, &all)
		if all.Conversation.Messages.TotalCount != 100 || len(all.Conversation.Messages.Edges) != 100 {
			t.Fatalf("agent reads %d of 100 messages", len(all.Conversation.Messages.Edges))
		}
		forks := map[string]bool{}
		for _, f := range tr.Forks {
			forks[f.String()] = true
		}
		var seen int
		for _, e := range all.Conversation.Messages.Edges {
			if forks[e.Node.ID] {
				seen++
				if e.Node.Siblings.Count != 2 || e.Node.Siblings.IDs[1] != e.Node.ID {
					t.Errorf("branch %s: siblings %+v", e.Node.ID, e.Node.Siblings)
				}
			}
		}
		if seen != len(tr.Forks) {
			t.Errorf("agent sees %d of the %d branches", seen, len(tr.Forks))
		}

		before := h.DB.Client.Message.Query().CountX(sysCtx())
		var fork uuid.UUID
		for k := range tr.Forks {
			fork = k
			break
		}
		writes := []struct {
			query, key, id string
			extra          map[string]any
		}{
			{`mutation($m: ID!) { editMessage(messageId: $m, question: "x", clientMessageId: "agent-edit") { attempt { id } } }`, "m", tr.Path[0].String(), nil},
			{`mutation($c: ID!, $m: ID!) { selectBranch(conversationId: $c, messageId: $m) { id } }`, "m", tr.Forks[fork].String(), map[string]any{"c": conv}},
			{`mutation($c: ID!, $m: ID!) { selectBranch(conversationId: $c, messageId: $m) { id } }`, "c", conv, map[string]any{"m": tr.Forks[fork].String()}},
			{`mutation($m: ID!) { forkConversation(messageId: $m) { id } }`, "m", tr.Path[10].String(), nil},
			{`mutation($c: ID!, $m: ID!) { ask(input: {conversationId: $c, clientMessageId: "agent-ask", question: "hi", parentMessageId: $m}) { attempt { id } } }`, "m", tr.Path[1].String(), map[string]any{"c": conv}},
		}
		for _, w := range writes {
			sameAsRandom(t, sam, w.query, w.key, w.id, w.extra)
		}
		if n := h.DB.Client.Message.Query().CountX(sysCtx()); n != before {
			t.Errorf("writes under the grant added %d messages", n-before)
		}
		var still pathPage
		mustDo(t, alice, currentPathQuery, map[string]any{"c": conv, "last": 1}, &still)
		if leaf := still.Conversation.CurrentLeafID; leaf == nil || *leaf != tr.Path[len(tr.Path)-1].String() {
			t.Errorf("the current leaf moved under the grant: %v", leaf)
		}
	})
}
