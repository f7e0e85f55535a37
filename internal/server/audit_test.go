package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestAdminReadsAreAuditedOncePerConversation: every path by which an
// admin reads another user's conversation content writes exactly one
// conversation.admin_read event per conversation per operation, however
// many of its rows the operation read; reading one's own conversations
// writes none.
func TestAdminReadsAreAuditedOncePerConversation(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, bob, admin := h.Client(t, "alice"), h.Client(t, "bob"), h.Client(t, "root", "admin")
		a1 := answered(t, alice, "上传文件最大是多少？", true)
		a2 := answered(t, alice, "退款多久到账？", true)
		b1 := answered(t, bob, "What is RAG?", true)
		own := answered(t, admin, "上传文件最大是多少？", true)
		// A second round in a1, so that its rows are many.
		waitDone(t, alice, ask(t, alice, a1.Conversation, "那超过以后返回什么错误码？"))

		cases := []struct {
			name  string
			read  func(t *testing.T)
			audit []string // conversations audited once each
		}{
			{"adminConversations with messages, attempts, sources and feedback", func(t *testing.T) {
				mustDo(t, admin, `{ adminConversations(first: 10) { edges { node { id title messages(first: 20) { edges { node { content
					attempt { answer sources { snippet } feedback { comment } } attempts { originalQuestion } } } } } } } }`, nil, nil)
			}, []string{a1.Conversation, a2.Conversation, b1.Conversation}},
			{"conversation and its attempts", func(t *testing.T) {
				mustDo(t, admin, `query($c: ID!) { conversation(id: $c) { title attempts(first: 10) { edges { node { answer } } } } }`,
					map[string]any{"c": a1.Conversation}, nil)
			}, []string{a1.Conversation}},
			{"attempt by id", func(t *testing.T) {
				mustDo(t, admin, `query($a: ID!) { attempt(id: $a) { answer originalQuestion userMessage { content } sources { snippet } feedback { comment } } }`,
					map[string]any{"a": a2.Attempt}, nil)
			}, []string{a2.Conversation}},
			{"node of every row", func(t *testing.T) {
				ids := []string{}
				for _, id := range a1.ids() {
					ids = append(ids, id)
				}
				ids = append(ids, b1.Answer, own.Answer)
				mustDo(t, admin, `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Message { content } ... on Attempt { answer } ... on Source { snippet } ... on Feedback { comment } } }`,
					map[string]any{"ids": ids}, nil)
			}, []string{a1.Conversation, b1.Conversation}},
			{"node through an edge", func(t *testing.T) {
				mustDo(t, admin, `query($id: ID!) { node(id: $id) { ... on Source { attempt { answer conversation { title } } } } }`,
					map[string]any{"id": b1.Sources[0]}, nil)
			}, []string{b1.Conversation}},
			{"feedbacks with their answers", func(t *testing.T) {
				mustDo(t, admin, `{ feedbacks(first: 20) { edges { node { comment attempt { answer } } } } }`, nil, nil)
			}, []string{a1.Conversation, a2.Conversation, b1.Conversation}},
			{"attemptEvents replay", func(t *testing.T) {
				codes, data := subscriptionErrors(t, admin, servertest.AttemptEventsQuery, map[string]any{"a": b1.Attempt})
				if len(codes) != 0 || !data {
					t.Fatalf("replay: codes %v", codes)
				}
			}, []string{b1.Conversation}},
			{"conversationEvents", func(t *testing.T) {
				subscribeAndRename(t, h, admin, bob, b1.Conversation)
			}, []string{b1.Conversation}},
			{"own conversation", func(t *testing.T) {
				mustDo(t, admin, `query($a: ID!) { attempt(id: $a) { answer sources { snippet } feedback { comment } } }`, map[string]any{"a": own.Attempt}, nil)
			}, nil},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				before := adminReads(t, h)
				tc.read(t)
				// Subscriptions write as their events stream; wait (as a
				// hang guard only) until the expected events are there.
				var after map[string]int
				deadline := time.Now().Add(10 * time.Second)
				for {
					after = adminReads(t, h)
					if grown(before, after) >= len(tc.audit) || time.Now().After(deadline) {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				want := map[string]int{}
				for _, c := range tc.audit {
					want[c] = 1
				}
				for conv, n := range after {
					if d := n - before[conv]; d != want[conv] {
						t.Errorf("conversation %s: %d new audit events, want %d", convName(conv, a1, a2, b1, own), d, want[conv])
					}
				}
				for conv := range want {
					if _, ok := after[conv]; !ok {
						t.Errorf("conversation %s: not audited", convName(conv, a1, a2, b1, own))
					}
				}
			})
		}
	})
}

// grown counts the audit events added between two counts.
func grown(before, after map[string]int) int {
	n := 0
	for k, v := range after {
		n += v - before[k]
	}
	return n
}

// convName names a conversation of the test in messages.
func convName(id string, rows ...attemptRows) string {
	for i, r := range rows {
		if r.Conversation == id {
			return fmt.Sprintf("#%d", i+1)
		}
	}
	return id
}

// subscribeAndRename subscribes admin to a conversation's events, lets its
// owner rename it until an event arrives, and stops.
func subscribeAndRename(t *testing.T, h *servertest.Harness, admin, owner *gqlclient.Client, conv string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctxT(t), 20*time.Second)
	defer cancel()
	sub, err := admin.SubscribeSSE(ctx, `subscription($c: ID!) { conversationEvents(conversationId: $c) { kind conversation { title } } }`, map[string]any{"c": conv})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Stop()
	for i := 0; ; i++ {
		mustDo(t, owner, `mutation($c: ID!, $t: String!) { renameConversation(id: $c, title: $t) { id } }`, map[string]any{"c": conv, "t": fmt.Sprint("t", i)}, nil)
		wctx, wcancel := context.WithTimeout(ctx, 100*time.Millisecond)
		r, err := sub.Next(wctx)
		wcancel()
		if err == nil {
			if len(r.Errors) > 0 {
				t.Fatalf("event errors: %+v", r.Errors)
			}
			return
		}
		if ctx.Err() != nil {
			t.Fatal("no conversation event")
		}
	}
}
