package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/gorilla/websocket"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/server"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestAnswerStreamsOverEveryTransport asks a question and follows the
// answer over graphql-transport-ws, legacy graphql-ws and graphql-sse: each
// stream starts with STARTED (the standalone question), carries SOURCES and
// contiguous DELTAs that spell the final answer, and ends with COMPLETED.
func TestAnswerStreamsOverEveryTransport(t *testing.T) {
	h := start(t, servertest.Options{})
	c := h.Client(t, "alice")

	transports := []struct {
		name      string
		subscribe func(t *testing.T, attempt string) *gqlclient.Subscription
	}{
		{"graphql-transport-ws", func(t *testing.T, attempt string) *gqlclient.Subscription {
			ws, err := c.DialWS(ctxT(t), gqlclient.WSOptions{})
			if err != nil {
				t.Fatalf("dial: %v", err)
			}
			t.Cleanup(ws.Close)
			sub, err := ws.Subscribe(attemptEventsQuery, map[string]any{"a": attempt})
			if err != nil {
				t.Fatal(err)
			}
			return sub
		}},
		{"graphql-ws legacy", func(t *testing.T, attempt string) *gqlclient.Subscription {
			ws, err := c.DialWS(ctxT(t), gqlclient.WSOptions{Protocol: gqlclient.ProtocolLegacyWS})
			if err != nil {
				t.Fatalf("dial: %v", err)
			}
			t.Cleanup(ws.Close)
			sub, err := ws.Subscribe(attemptEventsQuery, map[string]any{"a": attempt})
			if err != nil {
				t.Fatal(err)
			}
			return sub
		}},
		{"graphql-sse", func(t *testing.T, attempt string) *gqlclient.Subscription {
			sub, err := c.SubscribeSSE(ctxT(t), attemptEventsQuery, map[string]any{"a": attempt})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(sub.Stop)
			return sub
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			attempt := ask(t, c, createConversation(t, c), "上传文件最大是多少？")
			events := collectEvents(t, tr.subscribe(t, attempt))
			answer := checkStream(t, events)
			if !strings.Contains(answer, "20MB") {
				t.Errorf("answer %q does not mention the 20MB limit", answer)
			}
			var sawSources bool
			for _, e := range events {
				if e.Kind == "SOURCES" {
					sawSources = len(e.Sources) > 0 && e.Sources[0].Available && e.Sources[0].Snippet != nil
				}
			}
			if !sawSources {
				t.Errorf("no SOURCES event with an available snippet in %+v", events)
			}
		})
	}
}

// TestFinishedAttemptReplays subscribes after the answer completed: the
// stream replays and completes; with afterSeq it carries only the rest.
func TestFinishedAttemptReplays(t *testing.T) {
	h := start(t, servertest.Options{})
	c := h.Client(t, "alice")
	conv := createConversation(t, c)
	attempt := ask(t, c, conv, "上传文件最大是多少？")
	if s := waitDone(t, c, attempt); s != "COMPLETED" {
		t.Fatalf("status %s", s)
	}
	sub, err := c.SubscribeSSE(ctxT(t), attemptEventsQuery, map[string]any{"a": attempt})
	if err != nil {
		t.Fatal(err)
	}
	full := checkStream(t, collectEvents(t, sub))

	after := len([]rune(full)) / 2
	sub, err = c.SubscribeSSE(ctxT(t), attemptEventsQuery, map[string]any{"a": attempt, "s": after})
	if err != nil {
		t.Fatal(err)
	}
	var rest strings.Builder
	for _, e := range collectEvents(t, sub) {
		if e.Kind == "DELTA" {
			if e.Seq <= after {
				t.Fatalf("DELTA seq %d at or before afterSeq %d", e.Seq, after)
			}
			rest.WriteString(*e.Text)
		}
	}
	if got := string([]rune(full)[:after]) + rest.String(); got != full {
		t.Fatalf("resumed text %q, want %q", got, full)
	}
}

// TestWebSocketAuthFailuresClose4403 proves that a missing, malformed,
// badly signed or expired token closes the connection with 4403, which
// graphql-ws clients do not retry, instead of gqlgen's default 1000.
func TestWebSocketAuthFailuresClose4403(t *testing.T) {
	h := start(t, servertest.Options{})
	other := auth.NewDevIssuer([]byte("another-secret-0123456789abcdef0123456789"), "")
	forged, err := other.Mint(auth.Claims{Tenant: "demo", RegisteredClaims: jwt.RegisteredClaims{Subject: "mallory"}}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	expired, err := jwt.NewWithClaims(jwt.SigningMethodHS256, auth.Claims{Tenant: "demo", RegisteredClaims: jwt.RegisteredClaims{
		Subject:   "alice",
		IssuedAt:  jwt.NewNumericDate(time.Now().Add(-2 * time.Hour)),
		ExpiresAt: jwt.NewNumericDate(time.Now().Add(-time.Hour)),
	}}).SignedString(servertest.Secret)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		payload map[string]any
	}{
		{"missing", map[string]any{}},
		{"malformed", map[string]any{"Authorization": "Basic abc"}},
		{"forged", map[string]any{"Authorization": "Bearer " + forged}},
		{"garbage", map[string]any{"Authorization": "Bearer not.a.jwt"}},
		{"expired", map[string]any{"Authorization": "Bearer " + expired}},
	}
	for _, proto := range []string{gqlclient.ProtocolTransportWS, gqlclient.ProtocolLegacyWS} {
		for _, tc := range cases {
			t.Run(proto+"/"+tc.name, func(t *testing.T) {
				c := gqlclient.New(h.URL, "")
				ws, err := c.DialWS(ctxT(t), gqlclient.WSOptions{Protocol: proto, Payload: tc.payload})
				if err == nil {
					ws.Close()
					t.Fatal("connection accepted")
				}
				code, reason := closeCode(err)
				if code != server.CloseForbidden {
					t.Fatalf("closed with %d (%v), want %d", code, err, server.CloseForbidden)
				}
				if !strings.HasPrefix(reason, "Forbidden") {
					t.Errorf("close reason %q", reason)
				}
			})
		}
	}
	t.Run("valid token is acknowledged", func(t *testing.T) {
		ws, err := h.Client(t, "alice").DialWS(ctxT(t), gqlclient.WSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ws.Close()
	})
}

// TestWebSocketOriginAllowList accepts upgrades without an Origin
// (non-browser clients), from the server's own origin and from the
// allow-list, and refuses any other browser origin with 403.
func TestWebSocketOriginAllowList(t *testing.T) {
	h := start(t, servertest.Options{})
	host := strings.TrimPrefix(strings.TrimSuffix(h.URL, "/graphql"), "http://")
	cases := []struct {
		origin string
		ok     bool
	}{
		{"", true},
		{"http://" + host, true},
		{"http://localhost:3000", true},
		{"http://127.0.0.1:5173", true},
		{"https://evil.example", false},
		{"http://localhost.evil.example", false},
		{"http://localhost:3000@evil.example", false},
		{"null", false},
	}
	for _, tc := range cases {
		t.Run(tc.origin, func(t *testing.T) {
			c := h.Client(t, "alice")
			c.Origin = tc.origin
			ws, err := c.DialWS(ctxT(t), gqlclient.WSOptions{})
			if tc.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				ws.Close()
				return
			}
			if err == nil {
				ws.Close()
				t.Fatal("foreign origin accepted")
			}
			he, ok := err.(*gqlclient.HandshakeError)
			if !ok || he.Status != http.StatusForbidden {
				t.Fatalf("got %v, want a 403 handshake error", err)
			}
		})
	}
}

// TestCORS answers preflights for allowed origins only.
func TestCORS(t *testing.T) {
	h := start(t, servertest.Options{})
	for _, tc := range []struct {
		origin string
		allow  bool
	}{{"http://localhost:3000", true}, {"https://evil.example", false}} {
		req, _ := http.NewRequest(http.MethodOptions, h.URL, nil)
		req.Header.Set("Origin", tc.origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		got := res.Header.Get("Access-Control-Allow-Origin")
		if tc.allow && got != tc.origin {
			t.Errorf("%s: Access-Control-Allow-Origin %q", tc.origin, got)
		}
		if !tc.allow && got != "" {
			t.Errorf("%s: allowed (%q)", tc.origin, got)
		}
	}
}

// TestOneSocketCarriesEverything runs mutations and a subscription over a
// single WebSocket, as graphql-ws clients do.
func TestOneSocketCarriesEverything(t *testing.T) {
	h := start(t, servertest.Options{})
	ws, err := h.Client(t, "alice").DialWS(ctxT(t), gqlclient.WSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	run := func(query string, vars map[string]any, out any) {
		t.Helper()
		sub, err := ws.Subscribe(query, vars)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sub.Next(ctxT(t))
		if err != nil || len(r.Errors) > 0 {
			t.Fatalf("%s: %v %+v", query, err, r)
		}
		if err := r.Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	var conv struct{ CreateConversation struct{ ID string } }
	run(`mutation { createConversation(input: {}) { id } }`, nil, &conv)
	var asked struct {
		Ask struct{ Attempt struct{ ID string } }
	}
	run(`mutation($c: ID!) { ask(input: {conversationId: $c, clientMessageId: "ws-1", question: "退款多久到账？"}) { attempt { id } } }`,
		map[string]any{"c": conv.CreateConversation.ID}, &asked)
	sub, err := ws.Subscribe(attemptEventsQuery, map[string]any{"a": asked.Ask.Attempt.ID})
	if err != nil {
		t.Fatal(err)
	}
	checkStream(t, collectEvents(t, sub))
}

// TestConversationEventsKeepASecondTabInSync follows a conversation from a
// second connection while the first asks: the new messages and the
// attempt's status changes arrive, with the rows they name.
func TestConversationEventsKeepASecondTabInSync(t *testing.T) {
	h := start(t, servertest.Options{})
	c := h.Client(t, "alice")
	conv := createConversation(t, c)
	tab, err := c.SubscribeSSE(ctxT(t), `subscription($c: ID!) { conversationEvents(conversationId: $c) {
		kind conversationId attemptStatus message { role content } attempt { status } } }`, map[string]any{"c": conv})
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Stop()
	var user, assistant, completed bool
	// The subscription starts asynchronously; ask until it sees the
	// question (the first asks may happen before it listens).
	question := "上传文件最大是多少？"
	waitDone(t, c, ask(t, c, conv, question))
	for !(user && assistant && completed) {
		ctx, cancel := context.WithTimeout(ctxT(t), 3*time.Second)
		r, err := tab.Next(ctx)
		cancel()
		if err != nil {
			// Nothing arrived: the first ask preceded the subscription.
			waitDone(t, c, ask(t, c, conv, question))
			continue
		}
		var e struct {
			ConversationEvents struct {
				Kind, ConversationID string
				AttemptStatus        *string
				Message              *struct{ Role, Content string }
				Attempt              *struct{ Status string }
			}
		}
		if err := r.Decode(&e); err != nil {
			t.Fatal(err)
		}
		ev := e.ConversationEvents
		if ev.ConversationID != conv {
			t.Fatalf("event of another conversation: %+v", ev)
		}
		switch {
		case ev.Kind == "MESSAGE_CREATED" && ev.Message != nil && ev.Message.Role == "USER" && ev.Message.Content == question:
			user = true
		case ev.Kind == "MESSAGE_CREATED" && ev.Message != nil && ev.Message.Role == "ASSISTANT":
			assistant = true
		case ev.Kind == "ATTEMPT_UPDATED" && ev.AttemptStatus != nil && *ev.AttemptStatus == "COMPLETED" && ev.Attempt != nil:
			completed = true
		}
	}
}

// TestWebSocketInitTimeout closes a connection that never sends
// connection_init.
func TestWebSocketInitTimeout(t *testing.T) {
	h := start(t, servertest.Options{Config: func(c *config.Config) { c.HTTP.WSInitTimeout = 200 * time.Millisecond }})
	d := websocket.Dialer{Subprotocols: []string{gqlclient.ProtocolTransportWS}}
	conn, _, err := d.Dial("ws"+strings.TrimPrefix(h.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, _, err = conn.ReadMessage(); err != nil {
			break
		}
	}
	if code, _ := closeCode(err); code == 0 {
		t.Fatalf("connection not closed by the server: %v", err)
	}
}
