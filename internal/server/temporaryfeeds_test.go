package server_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// feedTrigger is one row of TestTemporaryChatOnEveryFeed: an action on a
// conversation of the row's user, the viewerEvents kind it makes for a
// normal conversation, and the conversationEvents kinds it makes on the
// conversation's own stream (docs/API.md, "Temporary chats").
type feedTrigger struct {
	name string
	// viewer is the viewerEvents kind the action makes for a normal
	// conversation ("" when none).
	viewer model.ViewerEventKind
	// conversation are the kinds the conversation's own stream gets, for
	// a temporary chat as for any conversation.
	conversation []model.ConversationEventKind
	// setup prepares conversation conv before the streams are followed.
	setup func(t *testing.T, f *feedWorld, conv string)
	// act makes the event and returns the id of the conversation it is
	// about (a new one for a creation); settle, when not nil, waits until
	// everything the action starts has finished.
	act func(t *testing.T, f *feedWorld, conv string, temporary bool) (id string, settle func())
}

// feedWorld is one row's user on one server.
type feedWorld struct {
	h     *servertest.Harness
	user  string
	c     *gqlclient.Client
	token string
}

const (
	feedEventsQuery = `subscription { viewerEvents { kind conversationId attachmentStatus conversation { title } } }`
	convEventsQuery = `subscription($c: ID!) { conversationEvents(conversationId: $c) { kind conversation { title } } }`
)

// feedTriggers cover every kind of both feeds (TestTemporaryChatOnEveryFeed
// fails when a kind of schema/feeds.graphqls, or one a feature adds to it,
// has no row).
func feedTriggers() []feedTrigger {
	rename := func(t *testing.T, f *feedWorld, conv, title string) {
		mustDo(t, f.c, `mutation($c: ID!, $t: String!) { renameConversation(id: $c, title: $t) { id } }`, map[string]any{"c": conv, "t": title}, nil)
	}
	on := func(q string) func(t *testing.T, f *feedWorld, conv string) {
		return func(t *testing.T, f *feedWorld, conv string) { mustDo(t, f.c, q, map[string]any{"c": conv}, nil) }
	}
	same := func(do func(t *testing.T, f *feedWorld, conv string)) func(t *testing.T, f *feedWorld, conv string, _ bool) (string, func()) {
		return func(t *testing.T, f *feedWorld, conv string, _ bool) (string, func()) {
			do(t, f, conv)
			return conv, nil
		}
	}
	return []feedTrigger{
		{
			name: "create", viewer: model.ViewerEventKindConversationCreated,
			act: func(t *testing.T, f *feedWorld, _ string, temporary bool) (string, func()) {
				return createFeedConversation(t, f, temporary), nil
			},
		},
		{
			name: "rename", viewer: model.ViewerEventKindConversationUpdated,
			conversation: []model.ConversationEventKind{model.ConversationEventKindConversationUpdated},
			act:          same(func(t *testing.T, f *feedWorld, conv string) { rename(t, f, conv, "renamed") }),
		},
		{
			name: "archive", viewer: model.ViewerEventKindConversationArchived,
			conversation: []model.ConversationEventKind{model.ConversationEventKindConversationUpdated},
			act:          same(on(`mutation($c: ID!) { archiveConversation(id: $c) { id } }`)),
		},
		{
			name: "delete", viewer: model.ViewerEventKindConversationDeleted,
			conversation: []model.ConversationEventKind{model.ConversationEventKindConversationDeleted},
			act:          same(on(`mutation($c: ID!) { deleteConversation(id: $c) { id } }`)),
		},
		{
			// A deleted conversation has no stream to follow.
			name: "restore", viewer: model.ViewerEventKindConversationRestored,
			setup: on(`mutation($c: ID!) { deleteConversation(id: $c) { id } }`),
			act:   same(on(`mutation($c: ID!) { restoreConversation(id: $c) { id } }`)),
		},
		{
			name: "ask", viewer: model.ViewerEventKindAttemptUpdated,
			conversation: []model.ConversationEventKind{model.ConversationEventKindMessageCreated, model.ConversationEventKindAttemptUpdated},
			act: func(t *testing.T, f *feedWorld, conv string, _ bool) (string, func()) {
				att := ask(t, f.c, conv, "上传文件最大是多少？")
				return conv, func() { waitDone(t, f.c, att) }
			},
		},
		{
			name: "select branch", viewer: model.ViewerEventKindBranchSelected,
			conversation: []model.ConversationEventKind{model.ConversationEventKindBranchSelected},
			setup: func(t *testing.T, f *feedWorld, conv string) {
				waitDone(t, f.c, ask(t, f.c, conv, "What is the upload limit?"))
			},
			act: same(func(t *testing.T, f *feedWorld, conv string) {
				q, err := f.h.DB.Client.Message.Query().
					Where(message.ConversationID(uuid.MustParse(conv)), message.RoleEQ(message.RoleUSER)).
					OnlyID(sysCtx())
				if err != nil {
					t.Fatal(err)
				}
				mustDo(t, f.c, `mutation($c: ID!, $m: ID!) { selectBranch(conversationId: $c, messageId: $m) { id } }`,
					map[string]any{"c": conv, "m": q.String()}, nil)
			}),
		},
		{
			name: "documents changed", viewer: model.ViewerEventKindSourcesChanged,
			conversation: []model.ConversationEventKind{model.ConversationEventKindSourcesChanged},
			setup: func(t *testing.T, f *feedWorld, conv string) {
				doc := f.ingest(t, conv, "The allowance is 42 zorkmids.")
				seedCitingAttempts(t, f.h, f.user, uuid.MustParse(conv), doc, 1)
			},
			act: same(func(t *testing.T, f *feedWorld, conv string) { f.ingest(t, conv, "The allowance is 43 zorkmids.") }),
		},
		{
			name: "upload", viewer: model.ViewerEventKindAttachmentUpdated,
			conversation: []model.ConversationEventKind{model.ConversationEventKindAttachmentUpdated},
			act: func(t *testing.T, f *feedWorld, conv string, _ bool) (string, func()) {
				status, out := filesUpload(t, strings.TrimSuffix(f.h.URL, "/graphql")+"/files", f.token, conv, "notes.txt", []byte("the allowance is 42 zorkmids"))
				if status != http.StatusCreated {
					t.Fatalf("upload: %d %v", status, out)
				}
				return conv, func() { f.waitAttachments(t, conv) }
			},
		},
	}
}

// createFeedConversation creates a conversation of f's user, temporary or
// not.
func createFeedConversation(t *testing.T, f *feedWorld, temporary bool) string {
	t.Helper()
	var out struct{ CreateConversation struct{ ID string } }
	mustDo(t, f.c, `mutation($t: Boolean) { createConversation(input: {title: "chat", temporary: $t}) { id } }`,
		map[string]any{"t": temporary}, &out)
	return out.CreateConversation.ID
}

// ingest (re-)ingests the document of conversation conv with content, as
// the tenant admin, visible to the whole tenant.
func (f *feedWorld) ingest(t *testing.T, conv, content string) *ent.Document {
	t.Helper()
	admin := viewer.NewContext(context.Background(), &viewer.Viewer{TenantID: "demo", UserID: "root", Roles: []viewer.Role{viewer.RoleAdmin}})
	kb, err := f.h.DB.Client.KnowledgeBase.Query().Where(knowledgebase.TenantID("demo")).First(sysCtx())
	if err != nil {
		t.Fatal(err)
	}
	doc, err := f.h.Knowledge.Ingest(admin, kb.ID, knowledge.DocumentInput{Title: "Allowance " + conv,
		SourceURI: "test://feeds/" + conv, Content: content})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// waitAttachments waits until every attachment of conv is READY or
// FAILED.
func (f *feedWorld) waitAttachments(t *testing.T, conv string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var out struct {
			Conversation struct{ Attachments []struct{ Status string } }
		}
		mustDo(t, f.c, `query($c: ID!) { conversation(id: $c) { attachments { status } } }`, map[string]any{"c": conv}, &out)
		if !slices.ContainsFunc(out.Conversation.Attachments, func(a struct{ Status string }) bool {
			return a.Status != "READY" && a.Status != "FAILED"
		}) {
			return
		}
	}
	t.Fatalf("the attachments of %s are still processing", conv)
}

// anyFeedEvent is one event of either feed as the test selects it.
type anyFeedEvent struct {
	Kind             string
	ConversationID   string
	AttachmentStatus *string
	Conversation     *struct{ Title string }
}

// nextOf returns sub's next event under key (the deadline is a hang
// guard); ok is false when none came within wait.
func nextOf(t *testing.T, sub *gqlclient.Subscription, key string, wait time.Duration) (anyFeedEvent, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctxT(t), wait)
	defer cancel()
	r, err := sub.Next(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return anyFeedEvent{}, false
		}
		t.Fatalf("%s: %v", key, err)
	}
	if len(r.Errors) > 0 {
		t.Fatalf("%s errors: %+v", key, r.Errors)
	}
	var out map[string]anyFeedEvent
	if err := r.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out[key], true
}

// live waits until sub, which starts asynchronously, is live: its first
// event is SUBSCRIBED, after which every event published reaches it
// (docs/API.md, "Knowing a stream is live").
func live(t *testing.T, sub *gqlclient.Subscription, key string) {
	t.Helper()
	ev, ok := nextOf(t, sub, key, 20*time.Second)
	if !ok {
		t.Fatalf("%s never started", key)
	}
	if ev.Kind != "SUBSCRIBED" {
		t.Fatalf("%s began with %s, want SUBSCRIBED", key, ev.Kind)
	}
}

// TestTemporaryChatOnEveryFeed: for every event kind of viewerEvents and
// conversationEvents (each a row of feedTriggers; a kind without a row
// fails the test), the same action on a temporary chat and on a normal
// conversation of one user: the user's viewerEvents carries the normal
// conversation's event and nothing at all about the temporary chat (up to
// a later sentinel conversation's CONVERSATION_CREATED), while the
// temporary chat's own conversationEvents carries its events as any
// conversation's does. Both backends.
func TestTemporaryChatOnEveryFeed(t *testing.T) {
	rows := feedTriggers()
	t.Run("every kind has a row", func(t *testing.T) {
		for _, k := range model.AllViewerEventKind {
			if k == model.ViewerEventKindSubscribed {
				continue // every stream's first event, about no conversation (TestSubscribedMeansLive)
			}
			if !slices.ContainsFunc(rows, func(r feedTrigger) bool { return r.viewer == k }) {
				t.Errorf("viewerEvents kind %s has no row in feedTriggers", k)
			}
		}
		for _, k := range model.AllConversationEventKind {
			if k == model.ConversationEventKindSubscribed {
				continue // every stream's first event (TestSubscribedMeansLive)
			}
			if !slices.ContainsFunc(rows, func(r feedTrigger) bool { return slices.Contains(r.conversation, k) }) {
				t.Errorf("conversationEvents kind %s has no row in feedTriggers", k)
			}
		}
	})
	eachBackend(t, servertest.Options{DocumentChangeInterval: 20 * time.Millisecond}, func(t *testing.T, h *servertest.Harness) {
		for i, row := range rows {
			t.Run(row.name, func(t *testing.T) {
				t.Parallel()
				user := fmt.Sprintf("feeds-%d", i)
				f := &feedWorld{h: h, user: user, c: h.Client(t, user), token: h.Token(t, "demo", user, []string{"member"})}
				feed, err := f.c.SubscribeSSE(ctxT(t), feedEventsQuery, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(feed.Stop)
				live(t, feed, "viewerEvents")

				tmp, normal := createFeedConversation(t, f, true), createFeedConversation(t, f, false)
				if row.setup != nil {
					row.setup(t, f, tmp)
					row.setup(t, f, normal)
				}
				var own *gqlclient.Subscription
				if len(row.conversation) > 0 {
					own, err = f.c.SubscribeSSE(ctxT(t), convEventsQuery, map[string]any{"c": tmp})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(own.Stop)
					live(t, own, "conversationEvents")
				}

				tmpID, settleTmp := row.act(t, f, tmp, true)
				normalID, settleNormal := row.act(t, f, normal, false)
				for _, settle := range []func(){settleTmp, settleNormal} {
					if settle != nil {
						settle()
					}
				}
				// The normal conversation's event arrives; then a sentinel
				// conversation's creation; nothing about the temporary chat
				// in between or before.
				sentinel := ""
				for {
					ev, ok := nextOf(t, feed, "viewerEvents", 20*time.Second)
					if !ok {
						t.Fatalf("viewerEvents: no %s of the normal conversation, or no sentinel", row.viewer)
					}
					if ev.ConversationID == tmpID {
						t.Fatalf("viewerEvents carries %s of the temporary chat %s", ev.Kind, tmpID)
					}
					if sentinel == "" && ev.ConversationID == normalID && ev.Kind == string(row.viewer) {
						sentinel = createFeedConversation(t, f, false)
					}
					if sentinel != "" && ev.ConversationID == sentinel {
						break
					}
				}
				if own == nil {
					return
				}
				want := slices.Clone(row.conversation)
				for len(want) > 0 {
					ev, ok := nextOf(t, own, "conversationEvents", 20*time.Second)
					if !ok {
						t.Fatalf("the temporary chat's conversationEvents: still waiting for %v", want)
					}
					want = slices.DeleteFunc(want, func(k model.ConversationEventKind) bool { return string(k) == ev.Kind })
				}
			})
		}
	})
}
