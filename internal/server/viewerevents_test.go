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

// viewerEventsQuery follows the viewer's feed with everything it offers.
const viewerEventsQuery = `subscription { viewerEvents {
	kind conversationId attemptId attemptStatus at
	conversation { id title status } attempt { id status } } }`

// viewerEvent is one viewerEvents payload.
type viewerEvent struct {
	Kind           string
	ConversationID string
	AttemptID      *string
	AttemptStatus  *string
	At             string
	Conversation   *struct{ ID, Title, Status string }
	Attempt        *struct{ ID, Status string }
}

// feedSub is one device's feed subscription.
type feedSub struct {
	t   *testing.T
	c   *gqlclient.Client
	sub *gqlclient.Subscription
}

// next returns the feed's next event (the deadline is a hang guard).
func (f *feedSub) next() viewerEvent {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(ctxT(f.t), 20*time.Second)
	defer cancel()
	r, err := f.sub.Next(ctx)
	if err != nil {
		f.t.Fatalf("feed: %v", err)
	}
	if len(r.Errors) > 0 {
		f.t.Fatalf("feed errors: %+v", r.Errors)
	}
	var out struct{ ViewerEvents viewerEvent }
	if err := r.Decode(&out); err != nil {
		f.t.Fatal(err)
	}
	return out.ViewerEvents
}

// createTitled creates a conversation of c's user with a title.
func createTitled(t *testing.T, c *gqlclient.Client, title string) string {
	t.Helper()
	var out struct{ CreateConversation struct{ ID string } }
	mustDo(t, c, `mutation($t: String!) { createConversation(input: {title: $t}) { id } }`, map[string]any{"t": title}, &out)
	return out.CreateConversation.ID
}

// ready waits until the subscription, which starts asynchronously, is
// live: its first event, SUBSCRIBED, came.
func (f *feedSub) ready() {
	f.t.Helper()
	if ev := f.next(); ev.Kind != "SUBSCRIBED" || ev.ConversationID != uuid.Nil.String() || ev.Conversation != nil {
		f.t.Fatalf("the feed began with %+v, want SUBSCRIBED about no conversation (the nil UUID)", ev)
	}
}

// TestViewerEventsAcrossInstances: alice's second device follows
// viewerEvents on instance B, over WebSocket or SSE, while her first device
// and an admin act through instance A: create, rename, ask (PENDING then
// COMPLETED, with the attempt), archive, delete (conversation null),
// restore, and the admin's delete and restore of her conversation. The
// device sees exactly those events with the conversation as it is now.
// Bob's feed and the admin's own feed see nothing of it: their next event
// is that of a conversation they create themselves afterwards.
func TestViewerEventsAcrossInstances(t *testing.T) {
	transports := []struct {
		name      string
		subscribe func(t *testing.T, c *gqlclient.Client) *gqlclient.Subscription
	}{
		{"websocket", func(t *testing.T, c *gqlclient.Client) *gqlclient.Subscription {
			ws, err := c.DialWS(ctxT(t), gqlclient.WSOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(ws.Close)
			sub, err := ws.Subscribe(viewerEventsQuery, nil)
			if err != nil {
				t.Fatal(err)
			}
			return sub
		}},
		{"sse", func(t *testing.T, c *gqlclient.Client) *gqlclient.Subscription {
			sub, err := c.SubscribeSSE(ctxT(t), viewerEventsQuery, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(sub.Stop)
			return sub
		}},
	}
	eachBackend(t, servertest.Options{}, func(t *testing.T, a *servertest.Harness) {
		b := servertest.Start(t, testdb.Backend{}, servertest.Options{Beside: a}) // instance B
		for _, tr := range transports {
			t.Run(tr.name, func(t *testing.T) {
				feed := func(c *gqlclient.Client) *feedSub {
					f := &feedSub{t: t, c: c, sub: tr.subscribe(t, c)}
					f.ready()
					return f
				}
				aliceB := feed(b.Client(t, "alice"))
				bobB := feed(b.Client(t, "bob"))
				adminB := feed(b.Client(t, "root", "admin"))
				aliceA, adminA := a.Client(t, "alice"), a.Client(t, "root", "admin")

				expect := func(kind, conv, title, status string) viewerEvent {
					t.Helper()
					ev := aliceB.next()
					if ev.Kind != kind || ev.ConversationID != conv {
						t.Fatalf("alice's device: got %s of %s, want %s of %s", ev.Kind, ev.ConversationID, kind, conv)
					}
					if ev.At == "" {
						t.Errorf("%s: no time", kind)
					}
					switch {
					case kind == "CONVERSATION_DELETED" && ev.Conversation != nil:
						t.Errorf("CONVERSATION_DELETED carries the conversation %+v", ev.Conversation)
					case kind != "CONVERSATION_DELETED" && (ev.Conversation == nil || ev.Conversation.ID != conv):
						t.Errorf("%s: conversation %+v", kind, ev.Conversation)
					case title != "" && ev.Conversation.Title != title:
						t.Errorf("%s: title %q, want %q", kind, ev.Conversation.Title, title)
					case status != "" && ev.Conversation.Status != status:
						t.Errorf("%s: status %q, want %q", kind, ev.Conversation.Status, status)
					}
					return ev
				}
				conv := createTitled(t, aliceA, "Uploads?")
				expect("CONVERSATION_CREATED", conv, "Uploads?", "ACTIVE")
				vars := map[string]any{"c": conv}
				mustDo(t, aliceA, `mutation($c: ID!) { renameConversation(id: $c, title: "Uploads") { id } }`, vars, nil)
				expect("CONVERSATION_UPDATED", conv, "Uploads", "ACTIVE")
				att := ask(t, aliceA, conv, "上传文件最大是多少？")
				for _, status := range []string{"PENDING", "COMPLETED"} {
					ev := expect("ATTEMPT_UPDATED", conv, "", "")
					if ev.AttemptID == nil || *ev.AttemptID != att || ev.AttemptStatus == nil || *ev.AttemptStatus != status {
						t.Fatalf("ATTEMPT_UPDATED: attempt %v status %v, want %s %s", ev.AttemptID, ev.AttemptStatus, att, status)
					}
					if ev.Attempt == nil || ev.Attempt.ID != att {
						t.Errorf("ATTEMPT_UPDATED: attempt %+v", ev.Attempt)
					}
				}
				mustDo(t, aliceA, `mutation($c: ID!) { archiveConversation(id: $c) { id } }`, vars, nil)
				expect("CONVERSATION_ARCHIVED", conv, "", "ARCHIVED")
				for _, c := range []*gqlclient.Client{aliceA, adminA} {
					mustDo(t, c, `mutation($c: ID!) { deleteConversation(id: $c) { id } }`, vars, nil)
					expect("CONVERSATION_DELETED", conv, "", "")
					mustDo(t, c, `mutation($c: ID!) { restoreConversation(id: $c) { id } }`, vars, nil)
					expect("CONVERSATION_RESTORED", conv, "", "ACTIVE")
				}

				for _, s := range []struct {
					feed  *feedSub
					actor *gqlclient.Client
				}{{bobB, a.Client(t, "bob")}, {adminB, adminA}, {aliceB, aliceA}} {
					own := createTitled(t, s.actor, "sentinel")
					if ev := s.feed.next(); ev.Kind != "CONVERSATION_CREATED" || ev.ConversationID != own {
						t.Errorf("the next event is %s of %s, not the viewer's own new conversation %s", ev.Kind, ev.ConversationID, own)
					}
				}
			})
		}
	})
}
