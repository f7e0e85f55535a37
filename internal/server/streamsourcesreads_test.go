package server_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

// chunkReads counts the statements that read chunks for countedUser: the
// re-authorisation of citations (every other statement passes through).
type chunkReads struct {
	countingDriver
	reads *atomic.Int64
}

func (d chunkReads) Query(ctx context.Context, query string, args, v any) error {
	if u := viewer.FromContext(ctx); u != nil && u.UserID == countedUser &&
		(strings.Contains(query, `FROM "chunks"`) || strings.Contains(query, "FROM `chunks`")) {
		d.reads.Add(1)
	}
	return d.countingDriver.Query(ctx, query, args, v)
}

// TestStreamsRecheckSourcesOnlyAfterAccessChanges: a viewerEvents stream
// that shows an answer's citations on every event reads nothing to
// re-authorise them while no access changed, anywhere in the tenant; after
// a change (here, of a document the answer does not cite) its next event
// checks them again, in one statement, and the events after that read
// nothing again. An attemptEvents replay re-authorises its SOURCES once and
// its COMPLETED attempt's sources with no further read.
func TestStreamsRecheckSourcesOnlyAfterAccessChanges(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			var reads atomic.Int64
			h := servertest.Start(t, b, servertest.Options{
				Driver: func(d dialect.Driver) dialect.Driver {
					return chunkReads{countingDriver: countingDriver{Driver: d, n: new(atomic.Int64)}, reads: &reads}
				},
			})
			c, admin := h.Client(t, countedUser), h.Client(t, "root", "admin")
			conv := createConversation(t, c)
			att := ask(t, c, conv, "上传文件最大是多少？")
			if s := waitDone(t, c, att); s != "COMPLETED" {
				t.Fatalf("answer: %s", s)
			}
			var docs struct {
				KnowledgeBases struct {
					Edges []struct {
						Node struct {
							Documents struct {
								Edges []struct{ Node struct{ ID, Title string } }
							}
						}
					}
				}
			}
			mustDo(t, admin, `{ knowledgeBases(first: 1) { edges { node { documents(first: 50) { edges { node { id title } } } } } } }`, nil, &docs)
			other := ""
			for _, e := range docs.KnowledgeBases.Edges[0].Node.Documents.Edges {
				if e.Node.Title == "退款说明" { // not cited by an upload question
					other = e.Node.ID
				}
			}
			if other == "" {
				t.Fatal("the demo's refund policy is missing")
			}

			ws, err := c.DialWS(ctxT(t), gqlclient.WSOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			sub, err := ws.Subscribe(`subscription { viewerEvents { kind `+conversationFields+` } }`, nil)
			if err != nil {
				t.Fatal(err)
			}
			f := &feed{name: "viewerEvents", field: "viewerEvents", sub: sub}
			renames := 0
			rename := func() string {
				renames++
				title := fmt.Sprintf("title %d", renames)
				mustDo(t, c, `mutation($c: ID!, $t: String!) { renameConversation(id: $c, title: $t) { id } }`, map[string]any{"c": conv, "t": title}, nil)
				return title
			}
			for { // the subscription starts asynchronously
				rename()
				if _, ok := f.next(t, 200*time.Millisecond); ok {
					break
				}
			}
			// readsFor returns the chunk reads of the event of one rename.
			readsFor := func() int64 {
				f.until(t, rename()) // the feed is drained up to the rename before
				before := reads.Load()
				ev := f.until(t, rename())
				if got, ok := ev.Conversation.sourcesOf(att); !ok || len(got) == 0 {
					t.Fatal("the event shows no citations")
				}
				return reads.Load() - before
			}
			if n := readsFor(); n != 0 {
				t.Errorf("no access changed: %d chunk reads for an event, want 0", n)
			}
			mustDo(t, admin, `mutation($d: ID!) { setDocumentAcl(documentId: $d, acl: {visibility: RESTRICTED, groups: ["legal"]}) { id } }`,
				map[string]any{"d": other}, nil)
			before := reads.Load()
			ev := f.until(t, rename())
			if got, _ := ev.Conversation.sourcesOf(att); len(got) == 0 {
				t.Fatal("the event shows no citations")
			}
			if n := reads.Load() - before; n != 1 {
				t.Errorf("after an access change: %d chunk reads for the next event, want 1", n)
			}
			if n := readsFor(); n != 0 {
				t.Errorf("no access changed since: %d chunk reads for an event, want 0", n)
			}

			before = reads.Load()
			replay, err := ws.Subscribe(attemptSourcesQuery, map[string]any{"a": att})
			if err != nil {
				t.Fatal(err)
			}
			s := &attemptStream{name: "attemptEvents replay", sub: replay}
			if ev := s.until(t, "SOURCES"); len(ev.Sources) == 0 {
				t.Fatal("the replay has no SOURCES")
			}
			if ev := s.until(t, "COMPLETED"); ev.Attempt == nil || len(ev.Attempt.Sources) == 0 {
				t.Fatal("COMPLETED shows no sources")
			}
			if n := reads.Load() - before; n != 1 {
				t.Errorf("an attemptEvents replay read chunks %d times, want 1", n)
			}
		})
	}
}
