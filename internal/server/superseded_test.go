package server_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// watchedStream is one subscription of the superseded-token test.
type watchedStream struct {
	name string
	sub  *gqlclient.Subscription
}

// ending reads the stream until it ends and returns the codes of the
// errors it carried.
func (s *watchedStream) ending(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctxT(t), 20*time.Second)
	defer cancel()
	var codes []string
	for {
		r, err := s.sub.Next(ctx)
		switch {
		case errors.Is(err, io.EOF):
			return codes
		case err != nil:
			t.Fatalf("%s: did not end: %v", s.name, err)
		}
		codes = append(codes, r.Codes()...)
	}
}

// live renames the conversation until the stream shows the new title (a
// stream's first event may precede its start), proving it still delivers.
func (s *watchedStream) live(t *testing.T, rename func(string) string) {
	t.Helper()
	title := rename(s.name)
	ctx, cancel := context.WithTimeout(ctxT(t), 20*time.Second)
	defer cancel()
	for {
		r, err := s.sub.Next(ctx)
		if err != nil {
			t.Fatalf("%s: not live: %v", s.name, err)
		}
		if len(r.Errors) > 0 {
			t.Fatalf("%s: errors %+v", s.name, r.Errors)
		}
		var out struct {
			ConversationEvents struct{ Conversation *struct{ Title string } }
		}
		if err := r.Decode(&out); err != nil {
			t.Fatal(err)
		}
		if c := out.ConversationEvents.Conversation; c != nil && c.Title == title {
			return
		}
	}
}

// TestSupersededTokenEndsStreams: an admin follows a member's conversation
// on replica B (over WebSocket and over SSE) with a token issued at t0.
// A token of the same admin issued later with the same roles ends
// nothing; once a token issued later still, with the member role only
// (the identity provider demoted the admin), is used on replica A, both
// streams end with FORBIDDEN, a new stream opened with the old token is
// refused the same way, and the member's own stream goes on. On SQLite
// one server plays both replicas. The goroutines are back at their
// baseline afterwards.
func TestSupersededTokenEndsStreams(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			o := servertest.Options{PostgresBroker: b.Name == "postgres"}
			a := servertest.Start(t, b, o)
			other := a
			if b.Name == "postgres" {
				o.Beside = a
				other = servertest.Start(t, b, o)
			}
			now := time.Now()
			adminOld := other.TokenIssuedAt(t, "demo", "root", now.Add(-30*time.Second), []string{"admin"})
			adminSame := a.TokenIssuedAt(t, "demo", "root", now.Add(-20*time.Second), []string{"admin"})
			adminDemoted := a.TokenIssuedAt(t, "demo", "root", now.Add(-10*time.Second), []string{"member"})
			aliceA, aliceB := a.Client(t, "alice"), other.Client(t, "alice")
			conv := createConversation(t, aliceA)
			renames := 0
			rename := func(prefix string) string {
				renames++
				title := fmt.Sprintf("%s %d", prefix, renames)
				mustDo(t, aliceA, `mutation($c: ID!, $t: String!) { renameConversation(id: $c, title: $t) { id } }`, map[string]any{"c": conv, "t": title}, nil)
				return title
			}
			rootB := gqlclient.New(other.URL, adminOld)
			sameA, demotedA := gqlclient.New(a.URL, adminSame), gqlclient.New(a.URL, adminDemoted)
			mustDo(t, rootB, `{ adminConversations(first: 1) { totalCount } }`, nil, nil)
			clients := []*gqlclient.Client{aliceA, aliceB, rootB, sameA, demotedA}
			baseline := settledAll(clients, 0)

			const follow = `subscription($c: ID!) { conversationEvents(conversationId: $c) { kind conversation { title } } }`
			vars := map[string]any{"c": conv}
			ws, err := rootB.DialWS(ctxT(t), gqlclient.WSOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			wsSub, err := ws.Subscribe(follow, vars)
			if err != nil {
				t.Fatal(err)
			}
			sseSub, err := rootB.SubscribeSSE(ctxT(t), follow, vars)
			if err != nil {
				t.Fatal(err)
			}
			defer sseSub.Stop()
			aliceWS, err := aliceB.DialWS(ctxT(t), gqlclient.WSOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer aliceWS.Close()
			aliceSub, err := aliceWS.Subscribe(follow, vars)
			if err != nil {
				t.Fatal(err)
			}
			admins := []*watchedStream{{"the admin's WebSocket stream", wsSub}, {"the admin's SSE stream", sseSub}}
			owner := &watchedStream{"the member's own stream", aliceSub}
			for _, s := range append(admins, owner) {
				s.live(t, rename)
			}

			// A later token with the same roles and groups supersedes
			// nothing.
			mustDo(t, sameA, `{ adminConversations(first: 1) { totalCount } }`, nil, nil)
			for _, s := range admins {
				s.live(t, rename)
			}

			// The demoted admin's next request, on the other replica.
			mustDo(t, demotedA, `{ conversations(first: 1) { totalCount } }`, nil, nil)
			for _, s := range admins {
				codes := s.ending(t)
				if len(codes) != 1 || codes[0] != "FORBIDDEN" {
					t.Errorf("%s ended with errors %v, want [FORBIDDEN]", s.name, codes)
				}
			}
			again, err := ws.Subscribe(follow, vars)
			if err != nil {
				t.Fatal(err)
			}
			if codes := (&watchedStream{"a new stream with the old token", again}).ending(t); len(codes) != 1 || codes[0] != "FORBIDDEN" {
				t.Errorf("a new stream with the old token ended with %v, want [FORBIDDEN]", codes)
			}
			owner.live(t, rename)

			ws.Close()
			aliceWS.Close()
			if n := settledAll(clients, baseline); n > baseline {
				var buf bytes.Buffer
				_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
				t.Fatalf("goroutines: %d after the streams ended, baseline %d\n%s", n, baseline, buf.String())
			}
		})
	}
}
