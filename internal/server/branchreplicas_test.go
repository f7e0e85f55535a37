package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
)

const (
	branchConversationEvents = `subscription($c: ID!) { conversationEvents(conversationId: $c) {
		kind conversationId messageId at conversation { id title currentLeafId } message { id depth siblings { count } } } }`
	branchViewerEvents = `subscription { viewerEvents { kind conversationId messageId at conversation { id title currentLeafId } } }`
)

// branchEvent is one conversationEvents or viewerEvents payload.
type branchEvent struct {
	Kind           string
	ConversationID string
	MessageID      *string
	Conversation   *struct {
		ID, Title     string
		CurrentLeafID *string
	}
	Message *struct {
		ID       string
		Depth    int
		Siblings struct{ Count int }
	}
}

// nextEvent returns the subscription's next payload under key (the
// deadline is a hang guard).
func nextEvent(t *testing.T, sub *gqlclient.Subscription, key string) branchEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctxT(t), 20*time.Second)
	defer cancel()
	r, err := sub.Next(ctx)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	if len(r.Errors) > 0 {
		t.Fatalf("%s errors: %+v", key, r.Errors)
	}
	var out map[string]branchEvent
	if err := r.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out[key]
}

// TestBranchSelectedAcrossReplicas: three replicas share one PostgreSQL
// database and its LISTEN/NOTIFY broker. Alice's second device follows
// her conversation on replica B (conversationEvents, WebSocket) and her
// feed on replica C (viewerEvents, SSE); she selects a side branch, and
// then the main branch's leaf again, through replica A. Each selection reaches
// both streams as BRANCH_SELECTED naming the new leaf (the newest message
// below the selected one), with the conversation as it is now; replica C
// then reads the new current path. Bob's feed on C sees none of it.
func TestBranchSelectedAcrossReplicas(t *testing.T) {
	// Three replicas share one PostgreSQL database and its broker.
	pg := testdb.PostgresBackend(t)
	a := servertest.Start(t, pg, servertest.Options{PostgresBroker: true})
	b := servertest.Start(t, pg, servertest.Options{PostgresBroker: true, Beside: a})
	c := servertest.Start(t, pg, servertest.Options{PostgresBroker: true, Beside: a})
	tr := seedTree(t, a, "alice", 100, 5)
	conv := tr.Conversation.String()
	aliceA, aliceB, aliceC := a.Client(t, "alice"), b.Client(t, "alice"), c.Client(t, "alice")

	ws, err := aliceB.DialWS(ctxT(t), gqlclient.WSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Close)
	convSub, err := ws.Subscribe(branchConversationEvents, map[string]any{"c": conv})
	if err != nil {
		t.Fatal(err)
	}
	viewerSub, err := aliceC.SubscribeSSE(ctxT(t), branchViewerEvents, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(viewerSub.Stop)
	bobFeed := &feedSub{t: t, c: c.Client(t, "bob")}
	bobFeed.sub, err = bobFeed.c.SubscribeSSE(ctxT(t), viewerEventsQuery, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bobFeed.sub.Stop)
	bobFeed.ready()

	// Both streams start asynchronously: each is live once its first
	// event, SUBSCRIBED, came. Events of seeding the tree on replica A may
	// still be on their way through the bus after it: skip to a marker
	// rename.
	for _, s := range []struct {
		sub *gqlclient.Subscription
		key string
	}{{convSub, "conversationEvents"}, {viewerSub, "viewerEvents"}} {
		if ev := nextEvent(t, s.sub, s.key); ev.Kind != "SUBSCRIBED" {
			t.Fatalf("%s began with %s, want SUBSCRIBED", s.key, ev.Kind)
		}
	}
	mustDo(t, aliceA, `mutation($c: ID!) { renameConversation(id: $c, title: "ready") { id } }`, map[string]any{"c": conv}, nil)
	skipTo := func(sub *gqlclient.Subscription, key string) {
		for {
			ev := nextEvent(t, sub, key)
			if ev.Kind == "CONVERSATION_UPDATED" && ev.Conversation != nil && ev.Conversation.Title == "ready" {
				return
			}
		}
	}
	skipTo(convSub, "conversationEvents")
	skipTo(viewerSub, "viewerEvents")

	var branchFirst uuid.UUID
	for _, v := range tr.Forks {
		branchFirst = v
		break
	}
	steps := []struct {
		name           string
		select_, leaf  uuid.UUID
		throughForkSib bool
	}{
		{"the side branch", branchFirst, tr.Leaves[branchFirst], true},
		// The main path's leaf: selecting the branch point itself would
		// continue to the newest message below it, a later side branch's.
		{"the main branch again", tr.Path[len(tr.Path)-1], tr.Path[len(tr.Path)-1], false},
	}
	for _, s := range steps {
		var sel struct {
			SelectBranch struct{ ID, CurrentLeafID string }
		}
		mustDo(t, aliceA, `mutation($c: ID!, $m: ID!) { selectBranch(conversationId: $c, messageId: $m) { id currentLeafId } }`,
			map[string]any{"c": conv, "m": s.select_.String()}, &sel)
		if sel.SelectBranch.CurrentLeafID != s.leaf.String() {
			t.Fatalf("%s: selectBranch answers leaf %s, want %s (the newest message below %s)", s.name, sel.SelectBranch.CurrentLeafID, s.leaf, s.select_)
		}
		for _, st := range []struct {
			sub *gqlclient.Subscription
			key string
		}{{convSub, "conversationEvents"}, {viewerSub, "viewerEvents"}} {
			ev := nextEvent(t, st.sub, st.key)
			if ev.Kind != "BRANCH_SELECTED" || ev.ConversationID != conv || ev.MessageID == nil || *ev.MessageID != s.leaf.String() {
				t.Fatalf("%s on %s: %s of %s, messageId %v; want BRANCH_SELECTED naming %s", s.name, st.key, ev.Kind, ev.ConversationID, ev.MessageID, s.leaf)
			}
			if ev.Conversation == nil || ev.Conversation.CurrentLeafID == nil || *ev.Conversation.CurrentLeafID != s.leaf.String() {
				t.Errorf("%s on %s: conversation %+v, want currentLeafId %s", s.name, st.key, ev.Conversation, s.leaf)
			}
			if st.key == "conversationEvents" && (ev.Message == nil || ev.Message.ID != s.leaf.String()) {
				t.Errorf("%s on %s: message %+v, want the new leaf", s.name, st.key, ev.Message)
			}
		}
		// Replica C reads the new branch.
		var p pathPage
		mustDo(t, aliceC, currentPathQuery, map[string]any{"c": conv, "last": 100}, &p)
		ids := p.ids()
		if len(ids) == 0 || ids[len(ids)-1] != s.leaf.String() {
			t.Fatalf("%s: replica C's current path ends at %v, want %s", s.name, ids[len(ids)-1:], s.leaf)
		}
		var onBranch bool
		for _, id := range ids {
			onBranch = onBranch || id == branchFirst.String()
		}
		if onBranch != s.throughForkSib {
			t.Errorf("%s: the path passes through the side branch: %v, want %v", s.name, onBranch, s.throughForkSib)
		}
	}

	// Bob's feed saw nothing of it: its next event is his own.
	own := createTitled(t, bobFeed.c, "sentinel")
	if ev := bobFeed.next(); ev.Kind != "CONVERSATION_CREATED" || ev.ConversationID != own {
		t.Errorf("bob's feed: %s of %s, want his own new conversation %s", ev.Kind, ev.ConversationID, own)
	}
}

// TestBusyRuleAcrossReplicas: one answer in flight per conversation,
// whichever branch and whichever replica. While an answer asked on
// replica A is held at the fake model, editing an earlier question on
// replica B, asking after an earlier answer (another branch) on replica
// C and regenerating the earlier answer on C are all CONVERSATION_BUSY,
// and none of them wrote anything; selecting a branch is not an answer
// and is allowed. Once the answer completes, the edit goes through on B.
func TestBusyRuleAcrossReplicas(t *testing.T) {
	// Three replicas share one PostgreSQL database and its broker.
	pg := testdb.PostgresBackend(t)
	fake, model := newFakeAnswers(t)
	fake.SetReply("单个上传文件最大为 20MB。")
	o := servertest.Options{PostgresBroker: true, Model: model}
	a := servertest.Start(t, pg, o)
	o.Beside = a
	b := servertest.Start(t, pg, o)
	c := servertest.Start(t, pg, o)
	aliceA, aliceB, aliceC := a.Client(t, "alice"), b.Client(t, "alice"), c.Client(t, "alice")

	conv := createConversation(t, aliceA)
	first := ask(t, aliceA, conv, "上传文件最大是多少？")
	if s := waitDone(t, aliceA, first); s != "COMPLETED" {
		t.Fatalf("first answer: %s", s)
	}
	var round struct {
		Attempt struct {
			UserMessage, AssistantMessage struct{ ID string }
		}
	}
	mustDo(t, aliceA, `query($a: ID!) { attempt(id: $a) { userMessage { id } assistantMessage { id } } }`, map[string]any{"a": first}, &round)

	fake.Hold(0)
	held := ask(t, aliceA, conv, "那超过以后返回什么错误码？")
	ctx, cancel := context.WithTimeout(ctxT(t), 20*time.Second)
	defer cancel()
	if err := fake.WaitHeld(ctx, 1); err != nil {
		t.Fatalf("the second answer never reached the model: %v", err)
	}
	count := func() int { return a.DB.Client.Message.Query().CountX(sysCtx()) }
	before := count()
	for _, w := range []struct {
		name   string
		client *gqlclient.Client
		query  string
		vars   map[string]any
	}{
		{"editMessage on B", aliceB, `mutation($m: ID!) { editMessage(messageId: $m, question: "上传文件上限？", clientMessageId: "busy-edit") { attempt { id } } }`,
			map[string]any{"m": round.Attempt.UserMessage.ID}},
		{"ask after the earlier answer on C", aliceC, `mutation($c: ID!, $p: ID!) { ask(input: {conversationId: $c, clientMessageId: "busy-ask", question: "退款多久到账？", parentMessageId: $p}) { attempt { id } } }`,
			map[string]any{"c": conv, "p": round.Attempt.AssistantMessage.ID}},
		{"retryAttempt of the earlier answer on C", aliceC, `mutation($a: ID!) { retryAttempt(input: {attemptId: $a, clientRequestId: "busy-retry"}) { attempt { id } } }`,
			map[string]any{"a": first}},
	} {
		if code, _ := errorCode(t, w.client, w.query, w.vars); code != "CONVERSATION_BUSY" {
			t.Errorf("%s while an answer runs: %q, want CONVERSATION_BUSY", w.name, code)
		}
	}
	if n := count(); n != before {
		t.Errorf("the refused writes added %d messages", n-before)
	}
	mustDo(t, aliceB, `mutation($c: ID!, $m: ID!) { selectBranch(conversationId: $c, messageId: $m) { id } }`,
		map[string]any{"c": conv, "m": round.Attempt.AssistantMessage.ID}, nil)

	fake.Release()
	if s := waitDone(t, aliceA, held); s != "COMPLETED" {
		t.Fatalf("held answer: %s", s)
	}
	var edit struct {
		EditMessage struct {
			UserMessage struct{ ID string }
			Attempt     struct{ ID string }
		}
	}
	mustDo(t, aliceB, `mutation($m: ID!) { editMessage(messageId: $m, question: "上传文件上限？", clientMessageId: "after-edit") { userMessage { id } attempt { id } } }`,
		map[string]any{"m": round.Attempt.UserMessage.ID}, &edit)
	if s := waitDone(t, aliceB, edit.EditMessage.Attempt.ID); s != "COMPLETED" {
		t.Fatalf("the edit's answer: %s", s)
	}
}
