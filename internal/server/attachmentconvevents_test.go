package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestAttachmentEventsOnTheConversationStream: an upload into a
// conversation, temporary or not, reports its states as ATTACHMENT_UPDATED
// on the conversation's own stream (a temporary chat's attachment list has
// no other way to learn that its file became READY, since viewerEvents
// never mentions a temporary chat). Each reader who may follow the stream
// gets those events exactly when a fresh query would show them the
// attachment (the owner; a tenant admin as far as the attachment policy
// lets them read it); a support agent, even under an approved grant, and
// another member cannot follow the stream at all. Both backends.
func TestAttachmentEventsOnTheConversationStream(t *testing.T) {
	const (
		streamQ = `subscription($c: ID!) { conversationEvents(conversationId: $c) { kind attachmentId attachmentStatus conversation { title } } }`
		nodeQ   = `query($a: ID!) { node(id: $a) { id } }`
	)
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		for _, temporary := range []bool{false, true} {
			name := map[bool]string{false: "normal", true: "temporary"}[temporary]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				owner := "attach-" + name
				alice := h.Client(t, owner)
				aliceToken := h.Token(t, "demo", owner, []string{"member"})
				readers := []struct {
					name    string
					c       *gqlclient.Client
					follows bool
				}{
					{"owner", alice, true},
					{"support under a grant", h.Client(t, "sam-"+name, "support"), false},
					{"tenant admin", h.Client(t, "root-"+name, "admin"), true},
					{"another member", h.Client(t, "bob-"+name), false},
				}
				var conv string
				{
					var out struct{ CreateConversation struct{ ID string } }
					mustDo(t, alice, `mutation($t: Boolean) { createConversation(input: {title: "chat", temporary: $t}) { id } }`,
						map[string]any{"t": temporary}, &out)
					conv = out.CreateConversation.ID
				}
				if g := request(t, readers[1].c, conv, nil); decide(t, alice, approveGrant, g.ID).Status != "APPROVED" {
					t.Fatal("the grant was not approved")
				}

				// Every reader follows the stream; those who may not
				// read the conversation are refused.
				subs := make([]*gqlclient.Subscription, len(readers))
				for i, r := range readers {
					sub, err := r.c.SubscribeSSE(ctxT(t), streamQ, map[string]any{"c": conv})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(sub.Stop)
					res, err := sub.Next(ctxT(t))
					if err != nil {
						t.Fatalf("%s: %v", r.name, err)
					}
					if follows := len(res.Errors) == 0; follows != r.follows {
						t.Fatalf("%s follows the conversation: %v, want %v (%+v)", r.name, follows, r.follows, res.Errors)
					}
					if !r.follows {
						continue
					}
					subs[i] = sub
				}

				status, out := filesUpload(t, strings.TrimSuffix(h.URL, "/graphql")+"/files", aliceToken, conv, "notes.txt", []byte("the allowance is 42 zorkmids"))
				if status != http.StatusCreated {
					t.Fatalf("upload: %d %v", status, out)
				}
				file := out["id"].(string)
				// The owner's stream reports every state up to READY; a
				// rename after it is the sentinel of every stream, which
				// gets the topic's events in the order they were published.
				statuses := make([][]string, len(readers))
				for done := false; !done; {
					ev, ok := nextOf(t, subs[0], "conversationEvents", 20*time.Second)
					if !ok {
						t.Fatalf("owner: no READY on the stream, only %v", statuses[0])
					}
					if ev.Kind == "ATTACHMENT_UPDATED" {
						statuses[0] = append(statuses[0], *ev.AttachmentStatus)
						done = *ev.AttachmentStatus == "READY"
					}
				}
				mustDo(t, alice, `mutation($c: ID!) { renameConversation(id: $c, title: "sentinel") { id } }`, map[string]any{"c": conv}, nil)

				for i, r := range readers {
					if subs[i] == nil {
						continue
					}
					for {
						ev, ok := nextOf(t, subs[i], "conversationEvents", 20*time.Second)
						if !ok {
							t.Fatalf("%s: no sentinel rename", r.name)
						}
						if ev.Kind == "ATTACHMENT_UPDATED" {
							statuses[i] = append(statuses[i], *ev.AttachmentStatus)
							continue
						}
						// The rename is the test's only CONVERSATION_UPDATED.
						// Its kind, not the title, marks it: an event's
						// conversation is read when the event is sent, so
						// an ATTACHMENT_UPDATED sent after the rename
						// committed shows the new title too.
						if ev.Kind == "CONVERSATION_UPDATED" && ev.Conversation != nil && ev.Conversation.Title == "sentinel" {
							break
						}
					}
					var node struct{ Node *struct{ ID string } }
					mustDo(t, r.c, nodeQ, map[string]any{"a": file}, &node)
					mayRead := node.Node != nil
					if r.name == "owner" && !mayRead {
						t.Fatal("the owner does not read their attachment")
					}
					got := statuses[i]
					if len(got) > 0 != mayRead {
						t.Fatalf("%s got ATTACHMENT_UPDATED %v on the stream, and reads the attachment: %v", r.name, got, mayRead)
					}
					if mayRead && got[len(got)-1] != "READY" {
						t.Fatalf("%s: the attachment's states on the stream were %v, want READY last", r.name, got)
					}
				}
			})
		}
	})
}
