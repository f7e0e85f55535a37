package server_test

import (
	"bytes"
	"encoding/json"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/gorilla/websocket"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// rawWS is a graphql-transport-ws connection driven message by message.
type rawWS struct {
	t    *testing.T
	conn *websocket.Conn
}

// dialRaw upgrades without sending anything.
func dialRaw(t *testing.T, h *servertest.Harness, proto string) *rawWS {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{proto}, HandshakeTimeout: 10 * time.Second}
	conn, _, err := d.Dial("ws"+strings.TrimPrefix(h.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawWS{t: t, conn: conn}
}

// send writes a text frame.
func (w *rawWS) send(frame string) {
	w.t.Helper()
	if err := w.conn.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
		w.t.Fatalf("send %s: %v", frame, err)
	}
}

// next reads one message (a hang guard of 20 s) and returns its type and
// id; a close returns type "" and the close error.
func (w *rawWS) next() (typ, id string, err error) {
	_ = w.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, data, err := w.conn.ReadMessage()
	if err != nil {
		return "", "", err
	}
	var m struct{ Type, ID string }
	if err := json.Unmarshal(data, &m); err != nil {
		w.t.Fatalf("server sent %s", data)
	}
	return m.Type, m.ID, nil
}

// expect reads the next message and requires its type (and id).
func (w *rawWS) expect(typ, id string) {
	w.t.Helper()
	got, gotID, err := w.next()
	if err != nil || got != typ || gotID != id {
		w.t.Fatalf("got %q id %q (%v), want %q id %q", got, gotID, err, typ, id)
	}
}

// closed reads until the server closes and returns the close code and
// reason; the types of the messages skipped on the way are returned too.
func (w *rawWS) closed() (int, string, []string) {
	w.t.Helper()
	var skipped []string
	for {
		typ, raw, err := w.next()
		if err != nil {
			code, reason := closeCode(err)
			if code == 0 {
				w.t.Fatalf("connection ended without a close frame: %v", err)
			}
			return code, reason, skipped
		}
		skipped = append(skipped, typ+" "+string(raw))
	}
}

// init sends connection_init with token and waits for connection_ack.
func (w *rawWS) init(token string) {
	w.t.Helper()
	w.send(`{"type":"connection_init","payload":{"Authorization":"Bearer ` + token + `"}}`)
	w.expect("connection_ack", "")
}

// TestGraphQLTransportWSCloseCodes drives graphql-transport-ws by hand and
// checks the close code of every protocol violation against the protocol
// (the graphql-ws library's PROTOCOL.md): 4400 for a malformed message or
// an unexpected type, 4401 for subscribe before connection_ack, 4403 for a
// refused connection_init, 4408 when connection_init does not come in
// time, 4409 for a subscribe whose id is active, 4429 for a second
// connection_init. gqlgen's transport closed these with 1002 or 1000. It
// runs on each backend.
func TestGraphQLTransportWSCloseCodes(t *testing.T) {
	for _, be := range testdb.Backends(t) {
		t.Run(be.Name, func(t *testing.T) {
			closeCodes(t, servertest.Start(t, be, servertest.Options{Config: func(c *config.Config) { c.HTTP.WSInitTimeout = 2 * time.Second }}))
		})
	}
}

func closeCodes(t *testing.T, h *servertest.Harness) {
	token := h.Token(t, "demo", "alice", []string{"member"})
	conv := createConversation(t, h.Client(t, "alice"))
	live := `{"id":"%s","type":"subscribe","payload":{"query":"subscription($c: ID!) { conversationEvents(conversationId: $c) { kind } }","variables":{"c":"` + conv + `"}}}`
	sub := func(id string) string { return strings.Replace(live, "%s", id, 1) }

	cases := []struct {
		name   string
		before func(w *rawWS) // what happens before the violation
		frame  string         // the violation ("" waits)
		code   int
		reason string // a prefix of the close reason
	}{
		{"not JSON", func(w *rawWS) { w.init(token) }, `{"type":`, 4400, "Invalid message received"},
		{"not an object", func(w *rawWS) { w.init(token) }, `["subscribe"]`, 4400, "Invalid message received"},
		{"unknown type after ack", func(w *rawWS) { w.init(token) }, `{"type":"hello"}`, 4400, "Unexpected message"},
		{"a server message type", func(w *rawWS) { w.init(token) }, `{"type":"next","id":"1","payload":{}}`, 4400, "Unexpected message"},
		{"subscribe without id", func(w *rawWS) { w.init(token) }, `{"type":"subscribe","payload":{"query":"{ viewer { userId } }"}}`, 4400, "Invalid message received"},
		{"subscribe without query", func(w *rawWS) { w.init(token) }, `{"type":"subscribe","id":"1","payload":{"variables":{}}}`, 4400, "Invalid message received"},
		{"malformed before init", nil, `{"type":7}`, 4400, "Invalid message received"},
		{"init payload not an object", nil, `{"type":"connection_init","payload":"Bearer x"}`, 4400, "Invalid message received"},
		{"subscribe before init", nil, sub("1"), 4401, "Unauthorized"},
		{"bad token", nil, `{"type":"connection_init","payload":{"Authorization":"Bearer nope"}}`, 4403, "Forbidden"},
		{"no init in time", nil, "", 4408, "Connection initialisation timeout"},
		{"duplicate id", func(w *rawWS) { w.init(token); w.send(sub("dup")) }, sub("dup"), 4409, "Subscriber for dup already exists"},
		{"second init", func(w *rawWS) { w.init(token) }, `{"type":"connection_init","payload":{"Authorization":"Bearer ` + token + `"}}`,
			4429, "Too many initialisation requests"},
	}
	check := func(t *testing.T, i int) {
		tc := cases[i]
		w := dialRaw(t, h, gqlclient.ProtocolTransportWS)
		if tc.before != nil {
			tc.before(w)
		}
		if tc.frame != "" {
			w.send(tc.frame)
		}
		code, reason, _ := w.closed()
		if code != tc.code || !strings.HasPrefix(reason, tc.reason) {
			t.Fatalf("%s: closed with %d %q, want %d %q", tc.name, code, reason, tc.code, tc.reason)
		}
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, i) })
	}
	// Every refused connection releases its goroutines.
	c := h.Client(t, "alice")
	baseline := settledGoroutines(c, 0)
	for range 2 {
		for i := range cases {
			check(t, i)
		}
	}
	if n := settledGoroutines(c, baseline); n > baseline+3 {
		var buf bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
		t.Fatalf("goroutines: %d after 2 rounds, baseline %d\n%s", n, baseline, buf.String())
	}
}

// TestGraphQLTransportWSConversation checks the rest of the protocol's
// rules: ping is answered before and after the acknowledgement, an id may
// be reused once its operation completed, a client's complete stops an
// operation without an answering complete, and an operation that fails
// validation ends with an error message (no complete).
func TestGraphQLTransportWSConversation(t *testing.T) {
	h := start(t, servertest.Options{})
	token := h.Token(t, "demo", "alice", []string{"member"})
	conv := createConversation(t, h.Client(t, "alice"))
	w := dialRaw(t, h, gqlclient.ProtocolTransportWS)

	w.send(`{"type":"ping","payload":{"n":1}}`)
	w.expect("pong", "")
	w.init(token)
	w.send(`{"type":"ping"}`)
	w.expect("pong", "")

	query := `{"id":"q","type":"subscribe","payload":{"query":"{ viewer { userId } }"}}`
	for range 2 { // the same id twice, one after the other
		w.send(query)
		w.expect("next", "q")
		w.expect("complete", "q")
	}

	w.send(`{"id":"bad","type":"subscribe","payload":{"query":"{ nope }"}}`)
	w.expect("error", "bad")

	w.send(`{"id":"live","type":"subscribe","payload":{"query":"subscription($c: ID!) { conversationEvents(conversationId: $c) { kind } }","variables":{"c":"` + conv + `"}}}`)
	w.send(`{"id":"live","type":"complete"}`)
	// Nothing more comes for "live": the next message answers the ping.
	w.send(`{"type":"ping"}`)
	w.expect("pong", "")
	// And its id is free again.
	w.send(strings.Replace(query, `"q"`, `"live"`, 1))
	w.expect("next", "live")
	w.expect("complete", "live")
}

// TestWebSocketTokenExpiryCloses4403 closes a connection whose token
// expires with 4403, which graphql-ws retries (its connectionParams then
// supply a fresh token).
func TestWebSocketTokenExpiryCloses4403(t *testing.T) {
	h := start(t, servertest.Options{})
	tok, err := h.Issuer.Mint(auth.Claims{Tenant: "demo", Roles: []string{"member"},
		RegisteredClaims: jwt.RegisteredClaims{Subject: "alice"}}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, proto := range []string{gqlclient.ProtocolTransportWS} {
		w := dialRaw(t, h, proto)
		w.init(tok)
		code, reason, _ := w.closed()
		if code != 4403 || reason != "Forbidden: token expired" {
			t.Fatalf("closed with %d %q", code, reason)
		}
	}
}

// TestShutdownLeavesSubscriptionsToResume checks that a subscription ended
// by the server's shutdown gets no complete before the 1012 close, so that
// graphql-ws resubscribes on its next connection instead of treating the
// stream as finished; queries still complete.
func TestShutdownLeavesSubscriptionsToResume(t *testing.T) {
	h := start(t, servertest.Options{})
	token := h.Token(t, "demo", "alice", []string{"member"})
	conv := createConversation(t, h.Client(t, "alice"))
	w := dialRaw(t, h, gqlclient.ProtocolTransportWS)
	w.init(token)
	w.send(`{"id":"live","type":"subscribe","payload":{"query":"subscription($c: ID!) { conversationEvents(conversationId: $c) { kind } }","variables":{"c":"` + conv + `"}}}`)
	// The subscription is live once its first event, SUBSCRIBED, came.
	w.expect("next", "live")
	w.send(`{"id":"q","type":"subscribe","payload":{"query":"{ viewer { userId } }"}}`)
	w.expect("next", "q")
	w.expect("complete", "q")
	done := make(chan error, 1)
	go func() { done <- h.Server.Shutdown(ctxT(t)) }()
	code, _, skipped := w.closed()
	if code != websocket.CloseServiceRestart {
		t.Fatalf("closed with %d, want 1012", code)
	}
	if len(skipped) > 0 {
		t.Fatalf("the subscription got %v before the close", skipped)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
