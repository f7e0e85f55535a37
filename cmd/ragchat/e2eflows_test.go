package main_test

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/server"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// Short names for the shared flow helpers.
var (
	ctxT               = servertest.Ctx
	mustDo             = servertest.MustDo
	errorCode          = servertest.ErrorCode
	createConversation = servertest.CreateConversation
	ask                = servertest.Ask
	waitDone           = servertest.WaitDone
	collectEvents      = servertest.CollectEvents
	checkStream        = servertest.CheckStream
)

const attemptEventsQuery = servertest.AttemptEventsQuery

// subscribeWS opens a WebSocket for c and subscribes to an attempt.
func subscribeWS(t *testing.T, c *gqlclient.Client, attempt string, afterSeq int) (*gqlclient.WS, *gqlclient.Subscription) {
	t.Helper()
	ws, err := c.DialWS(ctxT(t), gqlclient.WSOptions{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(ws.Close)
	sub, err := ws.Subscribe(attemptEventsQuery, map[string]any{"a": attempt, "s": afterSeq})
	if err != nil {
		t.Fatal(err)
	}
	return ws, sub
}

// TestEndToEnd drives one real `ragchat serve` process on PostgreSQL
// through its transports.
func TestEndToEnd(t *testing.T) {
	p := startServer(t)
	alice := p.client(t, "acme", "alice")

	t.Run("upload-limit dialogue (docs/ENGINE.md D17) over WebSocket with the rewrite visible", func(t *testing.T) {
		conv := createConversation(t, alice)
		a1 := ask(t, alice, conv, "上传文件最大是多少？")
		_, sub := subscribeWS(t, alice, a1, 0)
		ev1 := collectEvents(t, sub)
		answer1 := checkStream(t, ev1)
		if !strings.Contains(answer1, "20MB") {
			t.Fatalf("first answer %q lacks 20MB", answer1)
		}

		a2 := ask(t, alice, conv, "那超过以后返回什么错误码？")
		_, sub = subscribeWS(t, alice, a2, 0)
		ev2 := collectEvents(t, sub)
		answer2 := checkStream(t, ev2)
		started := ev2[0]
		if started.RequiresHistory == nil || !*started.RequiresHistory {
			t.Errorf("the follow-up was not marked as depending on the history: %+v", started)
		}
		if q := *started.StandaloneQuestion; q == "那超过以后返回什么错误码？" || !strings.Contains(q, "上传") {
			t.Errorf("standalone question %q does not resolve the follow-up", q)
		}
		if !strings.Contains(answer2, "413") && !strings.Contains(answer2, "ERR_FILE_TOO_LARGE") {
			t.Errorf("follow-up answer %q lacks the error code", answer2)
		}
		var out struct {
			Attempt struct {
				StandaloneQuestion string
				RequiresHistory    bool
			}
		}
		mustDo(t, alice, `query($a: ID!) { attempt(id: $a) { standaloneQuestion requiresHistory } }`, map[string]any{"a": a2}, &out)
		if out.Attempt.StandaloneQuestion != *started.StandaloneQuestion || !out.Attempt.RequiresHistory {
			t.Errorf("stored rewrite %+v differs from the streamed one", out.Attempt)
		}
	})

	t.Run("resume after a disconnect mid-stream", func(t *testing.T) {
		conv := createConversation(t, alice)
		a := ask(t, alice, conv, "How large can an uploaded file be, and what happens above the limit?")
		ws, sub := subscribeWS(t, alice, a, 0)
		var seen []servertest.Event
		for {
			r, err := sub.Next(ctxT(t))
			if err != nil {
				t.Fatalf("stream ended early: %v", err)
			}
			e := servertest.DecodeEvent(t, r)
			seen = append(seen, e)
			if e.Kind == "DELTA" && e.Seq >= 15 {
				break
			}
			if e.Kind == "COMPLETED" {
				t.Fatal("completed before the disconnect; the answer is too short")
			}
		}
		ws.Drop()
		lastSeq := seen[len(seen)-1].Seq
		head := servertest.DeltaText(t, seen, 0)

		_, sub = subscribeWS(t, alice, a, lastSeq)
		rest := collectEvents(t, sub)
		for _, e := range rest {
			if e.Kind == "DELTA" && e.Seq <= lastSeq {
				t.Fatalf("resumed stream repeats seq %d (resumed after %d)", e.Seq, lastSeq)
			}
		}
		tail := servertest.DeltaText(t, rest, lastSeq)
		final := rest[len(rest)-1]
		if final.Kind != "COMPLETED" || final.Attempt == nil {
			t.Fatalf("resumed stream ended with %+v", final)
		}
		if head+tail != final.Attempt.Answer {
			t.Fatalf("before+after the disconnect %q, final answer %q", head+tail, final.Attempt.Answer)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		conv := createConversation(t, alice)
		a := ask(t, alice, conv, "How large can an uploaded file be, and what happens above the limit?")
		_, sub := subscribeWS(t, alice, a, 0)
		for {
			r, err := sub.Next(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			if servertest.DecodeEvent(t, r).Kind == "DELTA" {
				break
			}
		}
		var out struct {
			CancelAttempt struct{ Status, FailureCode string }
		}
		mustDo(t, alice, `mutation($a: ID!) { cancelAttempt(id: $a) { status failureCode } }`, map[string]any{"a": a}, &out)
		rest := collectEvents(t, sub)
		last := rest[len(rest)-1]
		if last.Kind != "FAILED" || last.FailureCode == nil || *last.FailureCode != "CANCELLED" {
			t.Fatalf("stream ended with %+v, want FAILED CANCELLED", last)
		}
		if s := waitDone(t, alice, a); s != "FAILED" {
			t.Fatalf("attempt status %s", s)
		}
		// The conversation is free again.
		waitDone(t, alice, ask(t, alice, conv, "上传文件最大是多少？"))
	})

	t.Run("retry lineage", func(t *testing.T) {
		conv := createConversation(t, alice)
		first := ask(t, alice, conv, "退款多久到账？")
		waitDone(t, alice, first)
		var out struct {
			RetryAttempt struct {
				Deduplicated bool
				UserMessage  struct{ ID string }
				Attempt      struct {
					ID      string
					RetryOf struct{ ID string }
				}
			}
		}
		retry := `mutation($a: ID!, $k: String!) { retryAttempt(input: {attemptId: $a, clientRequestId: $k}) {
			deduplicated userMessage { id } attempt { id retryOf { id } } } }`
		mustDo(t, alice, retry, map[string]any{"a": first, "k": "retry-1"}, &out)
		second := out.RetryAttempt.Attempt.ID
		if out.RetryAttempt.Attempt.RetryOf.ID != first || second == first || out.RetryAttempt.Deduplicated {
			t.Fatalf("retry %+v", out.RetryAttempt)
		}
		waitDone(t, alice, second)
		// The same key again is deduplicated to the same attempt.
		mustDo(t, alice, retry, map[string]any{"a": first, "k": "retry-1"}, &out)
		if !out.RetryAttempt.Deduplicated || out.RetryAttempt.Attempt.ID != second {
			t.Fatalf("repeated retry %+v", out.RetryAttempt)
		}
		var lineage struct {
			Attempt struct {
				Retries     []struct{ ID string }
				UserMessage struct{ Attempts []struct{ ID string } }
			}
		}
		mustDo(t, alice, `query($a: ID!) { attempt(id: $a) { retries { id } userMessage { attempts { id } } } }`, map[string]any{"a": first}, &lineage)
		if len(lineage.Attempt.Retries) != 1 || lineage.Attempt.Retries[0].ID != second || len(lineage.Attempt.UserMessage.Attempts) != 2 {
			t.Fatalf("lineage %+v", lineage)
		}
	})

	t.Run("feedback rules", func(t *testing.T) {
		conv := createConversation(t, alice)
		a := ask(t, alice, conv, "上传文件最大是多少？")
		submit := `mutation($a: ID!, $r: FeedbackRating!, $c: String) { submitFeedback(input: {attemptId: $a, rating: $r, reasons: [INCOMPLETE], comment: $c}) { id rating comment } }`
		if s := waitDone(t, alice, a); s != "COMPLETED" {
			t.Fatal(s)
		}
		var f1, f2 struct{ SubmitFeedback struct{ ID, Rating string } }
		mustDo(t, alice, submit, map[string]any{"a": a, "r": "DOWN", "c": "missing the admin limit"}, &f1)
		mustDo(t, alice, submit, map[string]any{"a": a, "r": "UP"}, &f2)
		if f1.SubmitFeedback.ID != f2.SubmitFeedback.ID || f2.SubmitFeedback.Rating != "UP" {
			t.Fatalf("feedback not replaced: %+v then %+v", f1, f2)
		}
		bob := p.client(t, "acme", "bob")
		if code, e := errorCode(t, bob, submit, map[string]any{"a": a, "r": "UP"}); code != "NOT_FOUND" {
			t.Fatalf("another user's feedback: %s %+v", code, e)
		}
		if code, _ := errorCode(t, alice, submit, map[string]any{"a": a, "r": "UP", "c": strings.Repeat("x", 2001)}); code != "BAD_USER_INPUT" {
			t.Fatalf("long comment: %s", code)
		}
		// A PENDING attempt cannot be rated yet.
		pending := ask(t, alice, conv, "How large can an uploaded file be, and what happens above the limit?")
		if code, e := errorCode(t, alice, submit, map[string]any{"a": pending, "r": "UP"}); code == "" || code == "NOT_FOUND" {
			t.Fatalf("feedback on a PENDING attempt: %s %+v", code, e)
		}
		waitDone(t, alice, pending)
	})

	t.Run("admin views", func(t *testing.T) {
		admin := p.client(t, "acme", "root", "admin")
		conv := createConversation(t, alice)
		a := ask(t, alice, conv, "退款多久到账？")
		waitDone(t, alice, a)
		mustDo(t, alice, `mutation($a: ID!) { submitFeedback(input: {attemptId: $a, rating: DOWN, reasons: [OUTDATED]}) { id } }`, map[string]any{"a": a}, nil)

		var convs struct {
			AdminConversations struct {
				TotalCount int
				Edges      []struct{ Node struct{ ID, UserID string } }
			}
		}
		mustDo(t, admin, `{ adminConversations(first: 50, where: {userId: "alice", hasNegativeFeedback: true}) { totalCount edges { node { id userId } } } }`, nil, &convs)
		found := false
		for _, e := range convs.AdminConversations.Edges {
			found = found || e.Node.ID == conv
			if e.Node.UserID != "alice" {
				t.Fatalf("filter leaked %+v", e.Node)
			}
		}
		if !found {
			t.Fatalf("conversation with DOWN feedback not listed: %+v", convs)
		}
		var fb struct {
			Feedbacks struct {
				Edges []struct {
					Node struct {
						Rating      string
						ReasonCodes []string
					}
				}
			}
		}
		mustDo(t, admin, `{ feedbacks(first: 20, where: {rating: DOWN, reasonCode: OUTDATED}) { edges { node { rating reasonCodes } } } }`, nil, &fb)
		if len(fb.Feedbacks.Edges) == 0 {
			t.Fatal("feedbacks(where: DOWN, OUTDATED) is empty")
		}
		from, to := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		var sums struct {
			FeedbackSummary struct {
				Down     int
				ByReason []struct {
					Reason string
					Count  int
				}
			}
			UsageSummary []struct {
				Day         string
				Model       string
				TotalTokens int
			}
		}
		mustDo(t, admin, `query($f: Time!, $t: Time!) { feedbackSummary(from: $f, to: $t) { down byReason { reason count } }
			usageSummary(from: $f, to: $t) { day model totalTokens } }`, map[string]any{"f": from, "t": to}, &sums)
		if sums.FeedbackSummary.Down == 0 || len(sums.UsageSummary) == 0 || sums.UsageSummary[0].TotalTokens == 0 {
			t.Fatalf("summaries %+v", sums)
		}

		manifest := `query($a: ID!) { attemptDiagnostics(id: $a) { attemptId status contextManifest { chunkIds tokens { total } budget strategy model window answerReserve limits { evidence history } rounds { userSeq assistantSeq answer score } candidates { userSeq score chosen } shortenedAnswers omittedAnswers } timings { startedAt timeToFirstTokenMs durationMs } } }`
		var m struct {
			AttemptDiagnostics struct {
				AttemptID       string
				ContextManifest struct {
					ChunkIds []string
					Tokens   struct{ Total int }
					Budget   int
					Strategy string
					Model    string
					Window   int
					Limits   struct{ Evidence, History int }
				}
				Timings struct{ DurationMs *int }
			}
		}
		mustDo(t, admin, manifest, map[string]any{"a": a}, &m)
		if d := m.AttemptDiagnostics; d.AttemptID != a || len(d.ContextManifest.ChunkIds) == 0 || d.ContextManifest.Tokens.Total == 0 || d.Timings.DurationMs == nil {
			t.Fatalf("admin attempt diagnostics %+v", m)
		}
		if cm := m.AttemptDiagnostics.ContextManifest; cm.Strategy != "HYBRID" || cm.Model == "" || cm.Window < cm.Budget || cm.Limits.Evidence == 0 {
			t.Fatalf("the manifest names the default strategy, the model, its window and the section limits: %+v", cm)
		}
		if code, _ := errorCode(t, alice, manifest, map[string]any{"a": a}); code != "FORBIDDEN" {
			t.Fatalf("member reading the manifest: %s", code)
		}
		for _, q := range []string{`{ adminConversations(first: 5) { totalCount } }`, `{ feedbacks(first: 5) { totalCount } }`} {
			if code, _ := errorCode(t, alice, q, nil); code != "FORBIDDEN" {
				t.Fatalf("member %s: %s", q, code)
			}
		}

		// An admin opening alice's conversation leaves an audit event.
		mustDo(t, admin, `query($c: ID!) { conversation(id: $c) { id } }`, map[string]any{"c": conv}, nil)
		db, err := sql.Open("postgres", p.dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM audit_events WHERE tenant_id = 'acme' AND actor = 'root' AND target_id = $1`, conv).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatal("no audit event for the admin's cross-user read")
		}
	})

	t.Run("SSE streaming", func(t *testing.T) {
		conv := createConversation(t, alice)
		a := ask(t, alice, conv, "上传文件最大是多少？")
		sub, err := alice.SubscribeSSE(ctxT(t), attemptEventsQuery, map[string]any{"a": a})
		if err != nil {
			t.Fatal(err)
		}
		checkStream(t, collectEvents(t, sub))
	})

	t.Run("sources are re-authorised on read", func(t *testing.T) {
		ops := gqlclient.New(p.url, token(t, "acme", "olga", []string{"member"}, "ops"))
		conv := createConversation(t, ops)
		a := ask(t, ops, conv, "上传服务的内部运维手册怎么处理超限告警？")
		waitDone(t, ops, a)
		sourcesQ := `query($a: ID!) { attempt(id: $a) { sources { label available snippet documentTitle documentId } } }`
		type src struct {
			Available     bool
			Snippet       *string
			DocumentTitle *string
			DocumentID    *string
		}
		var before struct{ Attempt struct{ Sources []src } }
		mustDo(t, ops, sourcesQ, map[string]any{"a": a}, &before)
		var runbookDoc string
		for _, s := range before.Attempt.Sources {
			if s.Available && s.DocumentTitle != nil && strings.Contains(*s.DocumentTitle, "运维") {
				runbookDoc = *s.DocumentID
			}
		}
		if runbookDoc == "" {
			t.Fatalf("the ops runbook was not cited: %+v", before)
		}
		curator := p.client(t, "acme", "carol", "agent")
		setACL := `mutation($d: ID!, $g: [String!]) { setDocumentAcl(documentId: $d, acl: {visibility: RESTRICTED, groups: $g}) { id } }`
		mustDo(t, curator, setACL, map[string]any{"d": runbookDoc, "g": []string{"sre"}}, nil)
		var after struct{ Attempt struct{ Sources []src } }
		mustDo(t, ops, sourcesQ, map[string]any{"a": a}, &after)
		redacted := 0
		for _, s := range after.Attempt.Sources {
			if !s.Available {
				redacted++
				if s.Snippet != nil || s.DocumentTitle != nil || s.DocumentID != nil {
					t.Fatalf("redacted source still shows its content: %+v", s)
				}
			}
		}
		if redacted == 0 {
			t.Fatalf("no source redacted after the ACL change: %+v", after)
		}
		mustDo(t, curator, setACL, map[string]any{"d": runbookDoc, "g": []string{"ops"}}, nil)
	})

	t.Run("knowledge administration", func(t *testing.T) {
		curator := p.client(t, "acme", "carol", "agent")
		var kb struct{ CreateKnowledgeBase struct{ ID string } }
		mustDo(t, curator, `mutation { createKnowledgeBase(input: {name: "E2E", description: "test"}) { id } }`, nil, &kb)
		var doc struct {
			IngestDocument struct{ ID, Title, Visibility string }
		}
		mustDo(t, curator, `mutation($k: ID!) { ingestDocument(input: {knowledgeBaseId: $k, title: "Guide", content: "# Guide\n\nThe quota is 7 widgets per day.", acl: {visibility: RESTRICTED, groups: ["ops"]}}) { id title visibility } }`,
			map[string]any{"k": kb.CreateKnowledgeBase.ID}, &doc)
		if doc.IngestDocument.Visibility != "RESTRICTED" {
			t.Fatalf("ingested %+v", doc)
		}
		var acl struct {
			DocumentACL struct{ Groups []string } `json:"documentAcl"`
		}
		mustDo(t, curator, `query($d: ID!) { documentAcl(documentId: $d) { groups } }`, map[string]any{"d": doc.IngestDocument.ID}, &acl)
		if len(acl.DocumentACL.Groups) != 1 || acl.DocumentACL.Groups[0] != "ops" {
			t.Fatalf("acl %+v", acl)
		}
		mustDo(t, curator, `mutation($d: ID!) { deleteDocument(documentId: $d, reason: "test") { deletedDocumentId } }`, map[string]any{"d": doc.IngestDocument.ID}, nil)
		if code, _ := errorCode(t, curator, `query($d: ID!) { node(id: $d) { id } }`, map[string]any{"d": doc.IngestDocument.ID}); code != "NOT_FOUND" {
			t.Fatalf("deleted document: %s", code)
		}
	})

	t.Run("4403 on a bad token", func(t *testing.T) {
		bad := gqlclient.New(p.url, token(t, "acme", "alice", nil)+"x")
		_, err := bad.DialWS(ctxT(t), gqlclient.WSOptions{})
		if code, _ := servertest.CloseCode(err); code != server.CloseForbidden {
			t.Fatalf("bad token: %v, want close 4403", err)
		}
	})

	t.Run("foreign Origin rejected", func(t *testing.T) {
		c := p.client(t, "acme", "alice")
		c.Origin = "https://evil.example"
		_, err := c.DialWS(ctxT(t), gqlclient.WSOptions{})
		he, ok := err.(*gqlclient.HandshakeError)
		if !ok || he.Status != http.StatusForbidden {
			t.Fatalf("foreign origin: %v", err)
		}
	})

	t.Run("limits give clear codes", func(t *testing.T) {
		conv := createConversation(t, alice)
		cases := []struct {
			query string
			vars  map[string]any
			limit string
		}{
			{`{ conversations(first: 1000) { totalCount } }`, nil, "pageSize"},
			{`mutation($c: ID!, $q: String!) { ask(input: {conversationId: $c, clientMessageId: "x", question: $q}) { deduplicated } }`,
				map[string]any{"c": conv, "q": strings.Repeat("长", 5000)}, "questionLength"},
		}
		for _, tc := range cases {
			code, e := errorCode(t, alice, tc.query, tc.vars)
			if code != "BAD_USER_INPUT" || e.Extensions["limit"] != tc.limit {
				t.Fatalf("%s: %s %+v", tc.query, code, e)
			}
		}
	})
}

// TestGracefulShutdown stops a server while an answer streams: the process
// exits 0, the running attempt ends (completed, or FAILED INTERRUPTED), and
// the WebSocket is closed with 1012 so that clients reconnect elsewhere.
func TestGracefulShutdown(t *testing.T) {
	p := startServer(t, "RAGCHAT_OFFLINE_TOKEN_DELAY=20ms", "RAGCHAT_SHUTDOWN_TIMEOUT=20s")
	alice := p.client(t, "acme", "alice")
	conv := createConversation(t, alice)
	a := ask(t, alice, conv, "How large can an uploaded file be, and what happens above the limit?")
	ws, sub := subscribeWS(t, alice, a, 0)
	for {
		r, err := sub.Next(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		if servertest.DecodeEvent(t, r).Kind == "DELTA" {
			break
		}
	}
	if err := p.stop(30 * time.Second); err != nil {
		t.Fatalf("ragchat serve: %v\n%s", err, lastLines(p.stderr.String(), 40))
	}
	select {
	case <-ws.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("WebSocket still open after shutdown")
	}
	if code := ws.CloseCode(); code != 1012 {
		t.Errorf("WebSocket closed with %d (%v), want 1012", code, ws.Err())
	}
	// The attempt was not left PENDING.
	db, err := sql.Open("postgres", p.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var status string
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.QueryRowContext(ctx, `SELECT status FROM attempts WHERE id = $1`, a).Scan(&status); err != nil {
		t.Fatal(err)
	}
	if status == "PENDING" {
		t.Fatal("attempt left PENDING after shutdown")
	}
	if !strings.Contains(p.stderr.String(), `"msg":"stopped"`) {
		t.Errorf("no clean stop in the log:\n%s", lastLines(p.stderr.String(), 20))
	}
}
