package server_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// gatedModel is the offline model whose answers wait, once hold is called,
// until release: a test decides when an answer that has retrieved its
// evidence goes on.
type gatedModel struct {
	llm.Model
	mu   sync.Mutex
	gate chan struct{} // nil: open
}

func (g *gatedModel) ChatStream(ctx context.Context, req llm.ChatRequest) (llm.Stream, error) {
	g.mu.Lock()
	gate := g.gate
	g.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Model.ChatStream(ctx, req)
}

func (g *gatedModel) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gate = make(chan struct{})
}

func (g *gatedModel) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.gate)
	g.gate = nil
}

// shownSource is a source as a client sees it.
type shownSource struct {
	Label         string
	Available     bool
	Snippet       *string
	DocumentTitle *string
	DocumentID    *string
}

const sourceFields = `label available snippet documentTitle documentId`

// conversationFields selects every attempt's sources of a conversation.
const conversationFields = `conversation { id title attempts(first: 20) { edges { node { id sources { ` + sourceFields + ` } } } } }`

// shownConversation is conversationFields decoded.
type shownConversation struct {
	ID, Title string
	Attempts  struct {
		Edges []struct {
			Node struct {
				ID      string
				Sources []shownSource
			}
		}
	}
}

// sourcesOf returns the sources the conversation shows for attempt.
func (c *shownConversation) sourcesOf(attempt string) ([]shownSource, bool) {
	for _, e := range c.Attempts.Edges {
		if e.Node.ID == attempt {
			return e.Node.Sources, true
		}
	}
	return nil, false
}

// freshSources is what attempt(id) { sources } shows c now.
func freshSources(t *testing.T, c *gqlclient.Client, attempt string) []shownSource {
	t.Helper()
	var out struct {
		Attempt struct{ Sources []shownSource }
	}
	mustDo(t, c, `query($a: ID!) { attempt(id: $a) { sources { `+sourceFields+` } } }`, map[string]any{"a": attempt}, &out)
	return byLabel(out.Attempt.Sources)
}

func byLabel(s []shownSource) []shownSource {
	out := append([]shownSource(nil), s...)
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

// sameSources fails unless a stream showed exactly what a fresh query shows.
func sameSources(t *testing.T, where string, got, want []shownSource) {
	t.Helper()
	got, want = byLabel(got), byLabel(want)
	if len(got) != len(want) {
		t.Errorf("%s: %d sources, a fresh query shows %d", where, len(got), len(want))
		return
	}
	str := func(p *string) string {
		if p == nil {
			return "<null>"
		}
		return *p
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Label != w.Label || g.Available != w.Available || str(g.Snippet) != str(w.Snippet) ||
			str(g.DocumentTitle) != str(w.DocumentTitle) || str(g.DocumentID) != str(w.DocumentID) {
			t.Errorf("%s: source %s shows available=%v title=%s document=%s snippet=%.20q; a fresh query shows available=%v title=%s document=%s snippet=%.20q",
				where, g.Label, g.Available, str(g.DocumentTitle), str(g.DocumentID), str(g.Snippet),
				w.Available, str(w.DocumentTitle), str(w.DocumentID), str(w.Snippet))
		}
	}
}

// feed is a live viewerEvents or conversationEvents subscription whose
// events carry the conversation.
type feed struct {
	name  string
	sub   *gqlclient.Subscription
	field string // "viewerEvents" or "conversationEvents"
}

// feedEvent is one event of a feed.
type feedEvent struct {
	Kind         string
	Conversation *shownConversation
	Attempt      *struct {
		ID      string
		Status  string
		Sources []shownSource
	}
}

func (f *feed) next(t *testing.T, wait time.Duration) (feedEvent, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctxT(t), wait)
	defer cancel()
	r, err := f.sub.Next(ctx)
	if err != nil {
		return feedEvent{}, false
	}
	if len(r.Errors) > 0 {
		t.Fatalf("%s: errors %+v", f.name, r.Errors)
	}
	var out map[string]feedEvent
	if err := r.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out[f.field], true
}

// until returns the feed's first event whose conversation has title.
func (f *feed) until(t *testing.T, title string) feedEvent {
	t.Helper()
	for {
		ev, ok := f.next(t, 20*time.Second)
		if !ok {
			t.Fatalf("%s: no event with the title %q", f.name, title)
		}
		if ev.Conversation != nil && ev.Conversation.Title == title {
			return ev
		}
	}
}

// attemptStream is a live attemptEvents subscription.
type attemptStream struct {
	name string
	sub  *gqlclient.Subscription
}

// attemptStreamEvent is one attemptEvents event with its sources.
type attemptStreamEvent struct {
	Kind    string
	Sources []shownSource
	Attempt *struct {
		ID      string
		Status  string
		Sources []shownSource
	}
}

// until returns the stream's next event of kind.
func (s *attemptStream) until(t *testing.T, kind string) attemptStreamEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctxT(t), 20*time.Second)
	defer cancel()
	for {
		r, err := s.sub.Next(ctx)
		if err != nil {
			t.Fatalf("%s: no %s event: %v", s.name, kind, err)
		}
		if len(r.Errors) > 0 {
			t.Fatalf("%s: errors %+v", s.name, r.Errors)
		}
		var out struct{ AttemptEvents attemptStreamEvent }
		if err := r.Decode(&out); err != nil {
			t.Fatal(err)
		}
		if out.AttemptEvents.Kind == kind {
			return out.AttemptEvents
		}
	}
}

const attemptSourcesQuery = `subscription($a: ID!) { attemptEvents(attemptId: $a) {
	kind sources { ` + sourceFields + ` } attempt { id status sources { ` + sourceFields + ` } } } }`

// TestOpenStreamsReauthoriseSources: an admin restricts the document a
// member's answers cite while the member follows viewerEvents,
// conversationEvents and attemptEvents on another replica (two servers on
// one PostgreSQL database, each with its own LISTEN/NOTIFY broker; on
// SQLite, one server). Every event delivered after the change shows the
// citations exactly as a fresh attempt(id) { sources } does: unavailable,
// with no snippet, title or document id. That holds for the feeds'
// next events, which had shown those sources as available before the
// change; for a SOURCES event that a running answer published before the
// change and a new subscription receives after it; and for the COMPLETED
// attempt of a subscription that had received that SOURCES event before
// the change. Once the streams end, the goroutines are back at their
// baseline.
func TestOpenStreamsReauthoriseSources(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			model := &gatedModel{Model: offline.New(offline.Options{TokenDelay: time.Millisecond})}
			o := servertest.Options{Model: model, PostgresBroker: b.Name == "postgres"}
			a := servertest.Start(t, b, o)
			other := a // SQLite serves one instance
			if b.Name == "postgres" {
				o.Beside = a
				other = servertest.Start(t, b, o)
			}
			aliceA, adminA, aliceB := a.Client(t, "alice"), a.Client(t, "root", "admin"), other.Client(t, "alice")
			conv := createConversation(t, aliceA)
			const question = "上传文件最大是多少？"
			first := ask(t, aliceA, conv, question)
			if s := waitDone(t, aliceA, first); s != "COMPLETED" {
				t.Fatalf("first answer: %s", s)
			}
			var doc string
			for _, s := range freshSources(t, aliceB, first) {
				if s.Available && s.DocumentID != nil {
					doc = *s.DocumentID
					break
				}
			}
			if doc == "" {
				t.Fatal("the first answer cites no readable document")
			}
			clients := []*gqlclient.Client{aliceA, adminA, aliceB}
			baseline := settledAll(clients, 0)

			ws, err := aliceB.DialWS(ctxT(t), gqlclient.WSOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			subscribe := func(query string, vars map[string]any) *gqlclient.Subscription {
				t.Helper()
				sub, err := ws.Subscribe(query, vars)
				if err != nil {
					t.Fatal(err)
				}
				return sub
			}
			feeds := []*feed{
				{name: "viewerEvents", field: "viewerEvents", sub: subscribe(`subscription { viewerEvents { kind `+conversationFields+` attempt { id status sources { `+sourceFields+` } } } }`, nil)},
				{name: "conversationEvents", field: "conversationEvents", sub: subscribe(`subscription($c: ID!) { conversationEvents(conversationId: $c) { kind `+conversationFields+` attempt { id status sources { `+sourceFields+` } } } }`, map[string]any{"c": conv})},
			}
			rename := func(title string) {
				mustDo(t, aliceA, `mutation($c: ID!, $t: String!) { renameConversation(id: $c, title: $t) { id } }`, map[string]any{"c": conv, "t": title}, nil)
			}
			// The subscriptions start asynchronously: rename until each feed
			// has seen a rename, then skip to a marker.
			probes := 0
			for _, f := range feeds {
				for {
					probes++
					rename(fmt.Sprintf("probe %d", probes))
					if _, ok := f.next(t, 200*time.Millisecond); ok {
						break
					}
				}
			}
			rename("before")
			for _, f := range feeds {
				ev := f.until(t, "before")
				got, ok := ev.Conversation.sourcesOf(first)
				if !ok {
					t.Fatalf("%s: the conversation does not show the first attempt", f.name)
				}
				sameSources(t, f.name+" before the change", got, freshSources(t, aliceB, first))
			}

			// A second answer retrieves its evidence and then waits; a
			// subscription receives its SOURCES before the change.
			model.hold()
			second := ask(t, aliceA, conv, question)
			open := &attemptStream{name: "attemptEvents open across the change", sub: subscribe(attemptSourcesQuery, map[string]any{"a": second})}
			if ev := open.until(t, "SOURCES"); len(ev.Sources) == 0 {
				t.Fatal("the second answer has no evidence")
			}

			mustDo(t, adminA, `mutation($d: ID!) { setDocumentAcl(documentId: $d, acl: {visibility: RESTRICTED, groups: ["legal"]}) { id } }`,
				map[string]any{"d": doc}, nil)
			now := freshSources(t, aliceB, first)
			hidden := 0
			for _, s := range now {
				if !s.Available {
					hidden++
				}
			}
			if hidden == 0 {
				t.Fatal("after the change a fresh query still shows every source: the test restricts nothing")
			}

			rename("after")
			for _, f := range feeds {
				ev := f.until(t, "after")
				got, _ := ev.Conversation.sourcesOf(first)
				sameSources(t, f.name+" after the change", got, now)
			}
			late := &attemptStream{name: "attemptEvents opened after the change", sub: subscribe(attemptSourcesQuery, map[string]any{"a": second})}
			lateSources := late.until(t, "SOURCES").Sources

			model.release()
			completed := map[string][]shownSource{}
			for _, s := range []*attemptStream{open, late} {
				ev := s.until(t, "COMPLETED")
				if ev.Attempt == nil {
					t.Fatalf("%s: COMPLETED without its attempt", s.name)
				}
				completed[s.name] = ev.Attempt.Sources
			}
			want := freshSources(t, aliceB, second)
			sameSources(t, late.name+": SOURCES", lateSources, want)
			for name, got := range completed {
				sameSources(t, name+": COMPLETED attempt", got, want)
			}
			for _, f := range feeds {
				for {
					ev, ok := f.next(t, 20*time.Second)
					if !ok {
						t.Fatalf("%s: the second answer's completion never came", f.name)
					}
					if ev.Attempt != nil && ev.Attempt.ID == second && ev.Attempt.Status == "COMPLETED" {
						sameSources(t, f.name+": the completed attempt", ev.Attempt.Sources, want)
						break
					}
				}
			}

			ws.Close()
			if n := settledAll(clients, baseline); n > baseline {
				var buf bytes.Buffer
				_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
				t.Fatalf("goroutines: %d after the streams ended, baseline %d\n%s", n, baseline, buf.String())
			}
		})
	}
}

// settledAll closes the clients' idle connections and waits (up to 10 s)
// for the goroutine count to reach target (0: to stop changing), returning
// the count.
func settledAll(clients []*gqlclient.Client, target int) int {
	deadline := time.Now().Add(10 * time.Second)
	prev := -1
	for {
		for _, c := range clients {
			c.HTTP.CloseIdleConnections()
		}
		runtime.GC()
		n := runtime.NumGoroutine()
		if (target > 0 && n <= target) || (target == 0 && n == prev) || time.Now().After(deadline) {
			return n
		}
		prev = n
		time.Sleep(100 * time.Millisecond)
	}
}
