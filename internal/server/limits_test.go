package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestQueryShapeLimits refuses operations over the depth, alias, page-size
// and complexity limits before they run, with BAD_USER_INPUT and
// extensions.limit naming the limit.
func TestQueryShapeLimits(t *testing.T) {
	h := start(t, servertest.Options{})
	c := h.Client(t, "alice")
	var aliases strings.Builder
	for i := range 31 {
		fmt.Fprintf(&aliases, "a%d: viewer { userId } ", i)
	}
	cases := []struct {
		name, query, limit string
	}{
		{"depth", `{ conversations(first: 1) { edges { node { messages(first: 1) { edges { node { attempt {
			conversation { messages(first: 1) { edges { node { attempt { id } } } } } } } } } } } } }`, "depth"},
		{"aliases", "{ " + aliases.String() + "}", "aliases"},
		{"first over the cap", `{ conversations(first: 101) { totalCount } }`, "pageSize"},
		{"first and last", `{ conversations(first: 1, last: 1) { totalCount } }`, "pageSize"},
		{"negative", `{ conversations(first: -1) { totalCount } }`, "pageSize"},
		{"complexity", `{ conversations(first: 100) { edges { node { messages(first: 100) { edges { node {
			attempts { sources { label snippet } feedback { rating } } } } } } } } }`, "complexity"},
		{"variables count too", `query($n: Int) { conversations(first: $n) { totalCount } }`, "pageSize"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]any{}
			if strings.Contains(tc.query, "$n") {
				vars["n"] = 500
			}
			code, e := errorCode(t, c, tc.query, vars)
			if code != "BAD_USER_INPUT" || e.Extensions["limit"] != tc.limit {
				t.Fatalf("got %s %+v, want BAD_USER_INPUT limit %s", code, e, tc.limit)
			}
		})
	}
	t.Run("introspection is exempt from depth", func(t *testing.T) {
		mustDo(t, c, `{ __schema { types { name fields { name type { name ofType { name ofType { name ofType { name ofType { name ofType { name ofType { name ofType { name } } } } } } } } } } } }`, nil, nil)
	})
}

// TestInputLimits covers the limits on input sizes, batches, GET and the
// ask rate.
func TestInputLimits(t *testing.T) {
	h := start(t, servertest.Options{Config: func(c *config.Config) {
		c.Limits.MaxBodyBytes = 64 << 10
		c.Limits.MaxBatch = 3
		c.Limits.AskBurst = 2
		c.Limits.AskRatePerMinute = 1
		c.Limits.MaxSubscriptionsConn = 2
		c.Limits.MaxWSMessageBytes = 8 << 10
	}})
	c := h.Client(t, "alice")
	conv := createConversation(t, c)

	t.Run("question length", func(t *testing.T) {
		code, e := errorCode(t, c, `mutation($c: ID!, $q: String!) { ask(input: {conversationId: $c, clientMessageId: "long", question: $q}) { deduplicated } }`,
			map[string]any{"c": conv, "q": strings.Repeat("问", 4001)})
		if code != "BAD_USER_INPUT" || e.Extensions["limit"] != "questionLength" {
			t.Fatalf("%s %+v", code, e)
		}
	})
	t.Run("comment length", func(t *testing.T) {
		code, e := errorCode(t, c, `mutation($a: ID!, $m: String!) { submitFeedback(input: {attemptId: $a, rating: UP, comment: $m}) { id } }`,
			map[string]any{"a": conv, "m": strings.Repeat("x", 2001)})
		if code != "BAD_USER_INPUT" || e.Extensions["limit"] != "commentLength" {
			t.Fatalf("%s %+v", code, e)
		}
	})
	t.Run("body size", func(t *testing.T) {
		body, _ := json.Marshal(gqlclient.Request{Query: "{ viewer { userId } }", Variables: map[string]any{"pad": strings.Repeat("x", 70<<10)}})
		status, raw, err := c.PostRaw(ctxT(t), body, nil)
		if err != nil {
			t.Fatal(err)
		}
		if status != http.StatusRequestEntityTooLarge || !strings.Contains(string(raw), `"limit":"bodySize"`) || !strings.Contains(string(raw), `"code":"BAD_USER_INPUT"`) {
			t.Fatalf("HTTP %d %s", status, raw)
		}
	})
	t.Run("not JSON", func(t *testing.T) {
		status, raw, err := c.PostRaw(ctxT(t), []byte("query { viewer { userId } }"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if status != http.StatusBadRequest || !strings.Contains(string(raw), `"code":"BAD_USER_INPUT"`) {
			t.Fatalf("HTTP %d %s", status, raw)
		}
	})
	t.Run("batch", func(t *testing.T) {
		op := gqlclient.Request{Query: "{ viewer { userId } }"}
		status, raw, err := c.PostRaw(ctxT(t), mustMarshal(t, []any{op, op}), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []gqlclient.Response
		if status != http.StatusOK || json.Unmarshal(raw, &out) != nil || len(out) != 2 || !strings.Contains(string(out[1].Data), "alice") {
			t.Fatalf("HTTP %d %s", status, raw)
		}
		status, raw, err = c.PostRaw(ctxT(t), mustMarshal(t, []any{op, op, op, op}), nil)
		if err != nil {
			t.Fatal(err)
		}
		if status != http.StatusBadRequest || !strings.Contains(string(raw), `"limit":"batch"`) {
			t.Fatalf("HTTP %d %s", status, raw)
		}
	})
	t.Run("GET allows queries only", func(t *testing.T) {
		for _, tc := range []struct {
			query string
			ok    bool
		}{{"{ viewer { userId } }", true}, {"mutation { createConversation(input: {}) { id } }", false}} {
			req, _ := http.NewRequest(http.MethodGet, h.URL+"?query="+url.QueryEscape(tc.query), nil)
			req.Header.Set("Authorization", "Bearer "+c.Token)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var r gqlclient.Response
			_ = json.NewDecoder(res.Body).Decode(&r)
			res.Body.Close()
			if tc.ok != (len(r.Errors) == 0) {
				t.Fatalf("%s: HTTP %d %+v", tc.query, res.StatusCode, r)
			}
			if !tc.ok && r.Errors[0].Code() != "BAD_USER_INPUT" {
				t.Fatalf("%s: code %s", tc.query, r.Errors[0].Code())
			}
		}
	})
	t.Run("ask rate", func(t *testing.T) {
		// The tenant's settings decide: two asks, then one per minute.
		sys := viewer.SystemJobContext(ctxT(t), viewer.JobProvision)
		tn, err := h.DB.Client.Tenant.Get(sys, "demo")
		if err != nil {
			t.Fatal(err)
		}
		settings := tn.Settings
		settings.AskBurst, settings.AskRatePerMinute = 2, 1
		if err := h.DB.Client.Tenant.UpdateOneID("demo").SetSettings(settings).Exec(sys); err != nil {
			t.Fatal(err)
		}
		rc := h.Client(t, "rate-limited-user")
		rconv := createConversation(t, rc)
		q := `mutation($c: ID!, $k: String!) { ask(input: {conversationId: $c, clientMessageId: $k, question: "上传文件最大是多少？"}) { attempt { id } } }`
		for i := range 2 {
			var out struct {
				Ask struct{ Attempt struct{ ID string } }
			}
			mustDo(t, rc, q, map[string]any{"c": rconv, "k": fmt.Sprint("rate-", i)}, &out)
			waitDone(t, rc, out.Ask.Attempt.ID)
		}
		code, e := errorCode(t, rc, q, map[string]any{"c": rconv, "k": "rate-3"})
		if code != "RATE_LIMITED" || e.Extensions["retryAfterSeconds"] == nil {
			t.Fatalf("%s %+v", code, e)
		}
	})
	t.Run("subscriptions per connection", func(t *testing.T) {
		ws, err := c.DialWS(ctxT(t), gqlclient.WSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		q := `subscription($c: ID!) { conversationEvents(conversationId: $c) { kind } }`
		// gqlgen starts each subscription in its own goroutine, so which of
		// the three is refused is not determined; exactly one must be.
		var subs []*gqlclient.Subscription
		for range 3 {
			sub, err := ws.Subscribe(q, map[string]any{"c": conv})
			if err != nil {
				t.Fatal(err)
			}
			subs = append(subs, sub)
		}
		refused := 0
		deadline := time.Now().Add(10 * time.Second)
		for refused == 0 && time.Now().Before(deadline) {
			for _, sub := range subs {
				ctx, cancel := context.WithTimeout(ctxT(t), 50*time.Millisecond)
				r, err := sub.Next(ctx)
				cancel()
				if err != nil {
					continue
				}
				if len(r.Errors) == 0 && strings.Contains(string(r.Data), `"SUBSCRIBED"`) {
					continue // an admitted one is live
				}
				if len(r.Errors) == 0 || r.Errors[0].Code() != "RATE_LIMITED" || r.Errors[0].Extensions["limit"] != "subscriptionsPerConnection" {
					t.Fatalf("unexpected payload %+v", r)
				}
				refused++
			}
		}
		if refused != 1 {
			t.Fatalf("%d subscriptions refused, want 1", refused)
		}
	})
	t.Run("WebSocket message size", func(t *testing.T) {
		ws, err := c.DialWS(ctxT(t), gqlclient.WSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		if _, err := ws.Subscribe("{ viewer { userId } }", map[string]any{"pad": strings.Repeat("x", 9<<10)}); err != nil {
			t.Fatal(err)
		}
		<-ws.Done()
		if code := ws.CloseCode(); code != 1009 {
			t.Fatalf("closed with %d (%v), want 1009 (message too big)", code, ws.Err())
		}
	})
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestErrorsCarryCodes checks that every kind of failure has
// extensions.code.
func TestErrorsCarryCodes(t *testing.T) {
	h := start(t, servertest.Options{})
	c := h.Client(t, "alice")
	anon := gqlclient.New(h.URL, "")
	missing := "01900000-0000-7000-8000-000000000000"
	cases := []struct {
		name   string
		client *gqlclient.Client
		query  string
		code   string
	}{
		{"no token", anon, `{ viewer { userId } }`, "UNAUTHENTICATED"},
		{"unknown id", c, `{ conversation(id: "` + missing + `") { id } }`, "NOT_FOUND"},
		{"unknown node", c, `{ node(id: "` + missing + `") { id } }`, "NOT_FOUND"},
		{"malformed id", c, `{ conversation(id: "nope") { id } }`, "BAD_USER_INPUT"},
		{"bad enum in input", c, `mutation { submitFeedback(input: {attemptId: "` + missing + `", rating: UP, reasons: [NOPE]}) { id } }`, "GRAPHQL_VALIDATION_FAILED"},
		{"parse error", c, `{ viewer { `, "GRAPHQL_PARSE_FAILED"},
		{"unknown field", c, `{ nope }`, "GRAPHQL_VALIDATION_FAILED"},
		{"member asks for admin data", c, `{ feedbacks(first: 5) { totalCount } }`, "FORBIDDEN"},
		{"member curates", c, `mutation { createKnowledgeBase(input: {name: "x"}) { id } }`, "FORBIDDEN"},
		{"bad period", h.Client(t, "root", "admin"), `{ usageSummary(from: "2026-01-02T00:00:00Z", to: "2026-01-01T00:00:00Z") { day } }`, "BAD_USER_INPUT"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if code, e := errorCode(t, tc.client, tc.query, nil); code != tc.code {
				t.Fatalf("code %s (%+v), want %s", code, e, tc.code)
			}
		})
	}
	t.Run("introspection needs no token in development", func(t *testing.T) {
		mustDo(t, anon, `{ __schema { queryType { name } } }`, nil, nil)
	})
}

// TestIntrospectionOffInProduction hides the schema when configured so.
func TestIntrospectionOffInProduction(t *testing.T) {
	h := start(t, servertest.Options{Config: func(c *config.Config) {
		c.Env = config.Production
		c.HTTP.Introspection = false
		c.HTTP.GraphiQL = false
	}})
	code, _ := errorCode(t, h.Client(t, "alice"), `{ __schema { queryType { name } } }`, nil)
	if code != "FORBIDDEN" {
		t.Fatalf("introspection answered with %s", code)
	}
	res, err := http.Get(strings.TrimSuffix(h.URL, "/graphql") + "/graphiql")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("GraphiQL served in production: %d", res.StatusCode)
	}
}

// TestPersistedQueries follows the APQ protocol: a hash alone is
// PERSISTED_QUERY_NOT_FOUND until the query was sent with it once.
func TestPersistedQueries(t *testing.T) {
	h := start(t, servertest.Options{})
	c := h.Client(t, "alice")
	query := "{ viewer { userId } }"
	sum := sha256.Sum256([]byte(query))
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}
	_, r, err := c.Post(ctxT(t), gqlclient.Request{Extensions: ext}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Errors) == 0 || r.Errors[0].Code() != "PERSISTED_QUERY_NOT_FOUND" {
		t.Fatalf("first hash-only request: %+v", r)
	}
	for _, body := range []gqlclient.Request{{Query: query, Extensions: ext}, {Extensions: ext}} {
		_, r, err := c.Post(ctxT(t), body, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Errors) > 0 || !strings.Contains(string(r.Data), "alice") {
			t.Fatalf("APQ request %+v: %+v", body, r)
		}
	}
}

// bomb is a document of n+1 fragments where each fragment spreads the
// previous one twice (2^n copies of the first one's field).
func bomb(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "query { viewer { ...F%d } }\n", n)
	b.WriteString("fragment F0 on Viewer { userId }\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "fragment F%d on Viewer { ...F%d ...F%d }\n", i, i-1, i-1)
	}
	return b.String()
}

// TestFragmentBombIsRefusedBeforeValidation sends the 40-fragment bomb
// (2^40 spreads when expanded) with and without a token, over POST, GET
// and WebSocket, on each backend: it is refused at once, UNAUTHENTICATED without a token,
// BAD_USER_INPUT naming the limit with one; a wide fragment tree with no
// repeated field is refused by the selection budget (before validation,
// which would refuse its spreads). The deadline is only a
// hang guard (expanding 2^40 spreads never ends); the counted work is
// asserted in TestDocumentPrecheckIsLinear and
// TestLimitChecksVisitEachFragmentOnce.
func TestFragmentBombIsRefusedBeforeValidation(t *testing.T) {
	for _, be := range testdb.Backends(t) {
		t.Run(be.Name, func(t *testing.T) { fragmentBombRefused(t, servertest.Start(t, be, servertest.Options{})) })
	}
}

func fragmentBombRefused(t *testing.T, h *servertest.Harness) {
	member := h.Client(t, "alice")
	anon := gqlclient.New(h.URL, "")
	var tree strings.Builder
	tree.WriteString("{ ...T40 }\nfragment T0 on Query { __typename }\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&tree, "fragment T%d on Query { a: node(id: \"x\") { ...T%d } b: node(id: \"y\") { ...T%d } }\n", i, i-1, i-1)
	}
	cases := []struct {
		name   string
		client *gqlclient.Client
		query  string
		code   string
		limit  any
	}{
		{"anonymous", anon, bomb(40), "UNAUTHENTICATED", nil},
		{"member", member, bomb(40), "BAD_USER_INPUT", "repeatedFields"},
		{"anonymous introspection-only bomb", anon, strings.NewReplacer("userId", "__typename", "on Viewer", "on Query",
			"query { viewer { ...F40 } }", "query { __typename ...F40 }").Replace(bomb(40)), "BAD_USER_INPUT", "repeatedFields"},
		{"member, fragment tree", member, tree.String(), "BAD_USER_INPUT", "selections"},
	}
	for _, tc := range cases {
		t.Run(tc.name+"/POST", func(t *testing.T) {
			code, e := errorCode(t, tc.client, tc.query, nil)
			if code != tc.code || e.Extensions["limit"] != tc.limit {
				t.Fatalf("got %s %+v, want %s limit %v", code, e, tc.code, tc.limit)
			}
		})
		t.Run(tc.name+"/GET", func(t *testing.T) {
			req, _ := http.NewRequestWithContext(ctxT(t), http.MethodGet, h.URL+"?query="+url.QueryEscape(tc.query), nil)
			if tc.client.Token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.client.Token)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var r gqlclient.Response
			if err := json.NewDecoder(res.Body).Decode(&r); err != nil || len(r.Errors) == 0 {
				t.Fatalf("HTTP %d %v %+v", res.StatusCode, err, r)
			}
			if r.Errors[0].Code() != tc.code || r.Errors[0].Extensions["limit"] != tc.limit {
				t.Fatalf("got %+v, want %s limit %v", r.Errors[0], tc.code, tc.limit)
			}
		})
	}
	t.Run("member/WebSocket", func(t *testing.T) {
		ws, err := member.DialWS(ctxT(t), gqlclient.WSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		sub, err := ws.Subscribe(bomb(40), nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sub.Next(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Errors) == 0 || r.Errors[0].Code() != "BAD_USER_INPUT" || r.Errors[0].Extensions["limit"] != "repeatedFields" {
			t.Fatalf("got %+v", r)
		}
	})
}
