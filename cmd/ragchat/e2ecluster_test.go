package main_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"

	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// The cluster suite runs three real `ragchat serve` processes (A, B, C) on
// one PostgreSQL database, once with the PostgreSQL LISTEN/NOTIFY broker
// and once with NATS (a real server, in this test process), and checks
// what a load balancer that sends each request anywhere needs: an answer
// generated on A can be followed on B and resumed on C; a cancel sent to B
// stops A's model call; changes made through A reach B's feeds; the ask
// rate holds across the three; and when A dies, the streams on B and C end.

// clusterEnv is the shared database, the fake model and the broker
// settings of a cluster.
type clusterEnv struct {
	dbURL  string
	db     *sql.DB
	fake   *llmfake.Server
	broker []string // RAGCHAT_BROKER… variables
}

// clusterReply is the fake model's answer: long enough, streamed slowly
// enough, to interrupt and resume it.
var clusterReply = strings.Repeat("根据资料，单个文件最大 20MB [C1]。Files above it get ERR_FILE_TOO_LARGE. ", 12)

func newClusterEnv(t *testing.T, dbURL string, broker ...string) *clusterEnv {
	t.Helper()
	fake := llmfake.New()
	t.Cleanup(fake.Close)
	fake.SetEmbeddingDims(1) // every chunk scores ±1: retrieval always finds evidence
	fake.SetReply(clusterReply)
	fake.SetChunkRunes(3)
	fake.SetChunkDelay(15 * time.Millisecond) // about 2.5 s for the whole answer
	c := &clusterEnv{dbURL: dbURL, fake: fake, broker: broker}
	provision(t, c.env(t))
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	db.SetMaxOpenConns(1) // the test's own single connection, which the connection count leaves out
	c.db = db
	return c
}

// env is the environment of one instance (its own data directory, hence
// its own instance id).
func (c *clusterEnv) env(t *testing.T, extra ...string) []string {
	base := []string{
		"RAGCHAT_DATA_DIR=" + t.TempDir(), "RAGCHAT_LOAD_DEMO=false",
		"OPENAI_BASE_URL=" + c.fake.URL, "OPENAI_API_KEY=test", "OPENAI_CHAT_MODEL=fake-chat",
		// A small shared ask rate, so that the suite can exhaust it: three
		// asks per user at once, then one a minute.
		"RAGCHAT_ASK_BURST=3", "RAGCHAT_ASK_RATE_PER_MINUTE=1",
	}
	return baseEnv(t, c.dbURL, append(append(base, c.broker...), extra...)...)
}

// start launches n instances.
func (c *clusterEnv) start(t *testing.T, n int) []*process {
	t.Helper()
	ps := make([]*process, n)
	for i := range ps {
		ps[i] = launch(t, c.dbURL, c.env(t))
	}
	return ps
}

// usesPostgresBroker reports whether the cluster's broker is NOTIFY.
func (c *clusterEnv) usesPostgresBroker() bool {
	for _, v := range c.broker {
		if v == "RAGCHAT_BROKER=postgres" {
			return true
		}
	}
	return false
}

// brokerMetric returns the value of ragchat_broker_<name> in p's metrics.
func brokerMetric(t *testing.T, p *process, name string) string {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(p.url, "/graphql") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "ragchat_broker_"+name+" "); ok {
			return v
		}
	}
	t.Fatalf("no ragchat_broker_%s in the metrics", name)
	return ""
}

// startNATS runs a NATS server in this process on a free port.
func startNATS(t *testing.T) string {
	t.Helper()
	s, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server did not start")
	}
	t.Cleanup(s.Shutdown)
	return s.ClientURL()
}

func TestClusterPostgresBroker(t *testing.T) {
	c := newClusterEnv(t, testdb.PostgresURL(t), "RAGCHAT_BROKER=postgres")
	runClusterSuite(t, c)
}

func TestClusterNATSBroker(t *testing.T) {
	c := newClusterEnv(t, testdb.PostgresURL(t), "RAGCHAT_BROKER=nats", "RAGCHAT_NATS_URL="+startNATS(t))
	runClusterSuite(t, c)
}

// runClusterSuite runs the cross-instance scenarios on three instances.
func runClusterSuite(t *testing.T, c *clusterEnv) {
	ps := c.start(t, 3)
	a, b, cc := ps[0], ps[1], ps[2]

	t.Run("answered on A, followed on B over WebSocket, resumed on C over SSE", func(t *testing.T) {
		for _, q := range []string{"上传文件最大是多少？", "How large can an uploaded file be?"} {
			onA := a.client(t, "acme", "follow-"+fmt.Sprint(len(q)))
			conv := createConversation(t, onA)
			id := ask(t, onA, conv, q)

			// B: read a few deltas over graphql-transport-ws, then drop the socket.
			onB := b.client(t, "acme", "follow-"+fmt.Sprint(len(q)))
			ws, sub := subscribeWS(t, onB, id, 0)
			var seen []servertest.Event
			for len(deltas(seen)) < 3 {
				r, err := sub.Next(ctxT(t))
				if err != nil {
					t.Fatalf("B's stream ended early: %v (events %+v)", err, seen)
				}
				seen = append(seen, servertest.DecodeEvent(t, r))
				if k := seen[len(seen)-1].Kind; k == "COMPLETED" || k == "FAILED" {
					t.Fatalf("the answer ended before it could be interrupted: %+v", seen)
				}
			}
			ws.Drop()
			if seen[0].Kind != "STARTED" {
				t.Fatalf("B's first event %s, want STARTED", seen[0].Kind)
			}
			afterSeq := lastSeq(seen)

			// C: resume over graphql-sse with afterSeq.
			onC := cc.client(t, "acme", "follow-"+fmt.Sprint(len(q)))
			sse, err := onC.SubscribeSSE(ctxT(t), attemptEventsQuery, map[string]any{"a": id, "s": afterSeq})
			if err != nil {
				t.Fatal(err)
			}
			rest := collectEvents(t, sse)
			final := rest[len(rest)-1]
			if final.Kind != "COMPLETED" || final.Attempt == nil {
				t.Fatalf("C's stream ended with %+v", final)
			}
			text := servertest.DeltaText(t, seen, 0) + servertest.DeltaText(t, rest, afterSeq)
			if text != final.Attempt.Answer {
				t.Fatalf("B then C spell\n%q\nthe answer is\n%q", text, final.Attempt.Answer)
			}
			checkSeqsIncrease(t, append(seen, rest...))
		}
	})

	t.Run("B's metrics count what the broker relayed", func(t *testing.T) {
		if n := brokerMetric(t, b, "received_events_total"); n == "0" {
			t.Fatal("B received nothing from A")
		}
	})

	if c.usesPostgresBroker() {
		t.Run("a NOTIFY forged on the database is dropped and counted by every replica", func(t *testing.T) {
			forged := `rcb1 forger-1 1 1 1` + "\n" + `[{"t":"attempt:x","k":"COMPLETED","f":1}]`
			if _, err := c.db.ExecContext(ctxT(t), `SELECT pg_notify('ragchat_broker', $1)`, forged); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for _, p := range ps {
				for brokerMetric(t, p, "rejected_frames_total") == "0" {
					if time.Now().After(deadline) {
						t.Fatal("a replica did not count the forged frame")
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
		})
	}

	t.Run("a cancel sent to B closes A's model request", func(t *testing.T) {
		onA := a.client(t, "acme", "canceller")
		conv := createConversation(t, onA)
		id := ask(t, onA, conv, "上传文件最大是多少？")
		_, sub := subscribeWS(t, onA, id, 0)
		waitForDelta(t, sub)
		drain(c.fake.Disconnects())
		sent := time.Now()
		var out struct{ CancelAttempt struct{ Status string } }
		mustDo(t, b.client(t, "acme", "canceller"), `mutation($a: ID!) { cancelAttempt(id: $a) { status } }`, map[string]any{"a": id}, &out)
		select {
		case <-c.fake.Disconnects():
			t.Logf("cancel on B → A's upstream closed: %s", time.Since(sent).Round(time.Millisecond))
		case <-time.After(30 * time.Second): // a hang guard, not a latency bound
			t.Fatal("A's model request was never closed")
		}
		events := collectEvents(t, sub)
		if last := events[len(events)-1]; last.Kind != "FAILED" || last.FailureCode == nil || *last.FailureCode != "CANCELLED" {
			t.Fatalf("A's own subscriber ended with %+v", last)
		}
	})

	t.Run("conversation and viewer feeds on B see changes made through A", func(t *testing.T) {
		onA := a.client(t, "acme", "syncer")
		onB := b.client(t, "acme", "syncer")
		ws, err := onB.DialWS(ctxT(t), gqlclient.WSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		feed, err := ws.Subscribe(`subscription { viewerEvents { kind conversationId attemptStatus } }`, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Someone else's changes must never reach this feed.
		other := createConversation(t, a.client(t, "acme", "someone-else"))

		// A subscription is live once it has delivered something: create
		// conversations on A until one's CONVERSATION_CREATED arrives on B.
		var conv string
		for i := 0; ; i++ {
			if i == 20 {
				t.Fatal("viewerEvents on B never saw a conversation created on A")
			}
			conv = createConversation(t, onA)
			if waitFeed(t, feed, conv, other, "CONVERSATION_CREATED", "", 2*time.Second) {
				break
			}
		}
		convFeed, err := ws.Subscribe(`subscription($c: ID!) { conversationEvents(conversationId: $c) { kind attemptStatus } }`, map[string]any{"c": conv})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			if i == 20 {
				t.Fatal("conversationEvents on B never saw a rename made on A")
			}
			mustDo(t, onA, `mutation($c: ID!, $t: String!) { renameConversation(id: $c, title: $t) { id } }`,
				map[string]any{"c": conv, "t": fmt.Sprint("跨实例 ", i)}, nil)
			if waitConversationEvent(t, convFeed, "CONVERSATION_UPDATED", "", 2*time.Second) {
				break
			}
		}
		if !waitFeed(t, feed, conv, other, "CONVERSATION_UPDATED", "", 30*time.Second) {
			t.Fatal("viewerEvents on B never saw the rename")
		}
		id := ask(t, onA, conv, "上传文件最大是多少？")
		if !waitConversationEvent(t, convFeed, "ATTEMPT_UPDATED", "COMPLETED", 30*time.Second) {
			t.Fatal("conversationEvents on B never saw the answer complete")
		}
		if !waitFeed(t, feed, conv, other, "ATTEMPT_UPDATED", "COMPLETED", 30*time.Second) {
			t.Fatal("viewerEvents on B never saw the answer complete")
		}
		if waitDone(t, onA, id) != "COMPLETED" {
			t.Fatal("the answer did not complete")
		}
	})

	t.Run("the ask rate holds across A, B and C", func(t *testing.T) {
		var accepted, limited int
		for i, p := range []*process{a, b, cc, a, b, cc} {
			cl := p.client(t, "acme", "rated")
			conv := createConversation(t, cl)
			r, err := cl.Do(ctxT(t), `mutation($c: ID!, $k: String!) { ask(input: {conversationId: $c, clientMessageId: $k, question: "退款多久到账？"}) { attempt { id } } }`,
				map[string]any{"c": conv, "k": fmt.Sprint("rate-", i)})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case len(r.Errors) == 0:
				accepted++
			case r.Errors[0].Code() == "RATE_LIMITED":
				limited++
				if r.Errors[0].Extensions["retryAfterSeconds"] == nil {
					t.Errorf("RATE_LIMITED without retryAfterSeconds: %+v", r.Errors[0])
				}
			default:
				t.Fatalf("ask %d: %+v", i, r.Errors)
			}
		}
		if accepted != 3 || limited != 3 {
			t.Fatalf("%d accepted and %d limited across three instances, want 3 and 3 (burst 3)", accepted, limited)
		}
	})

	// Last: A dies.
	t.Run("A killed mid-answer: streams on B and C end FAILED(INTERRUPTED)", func(t *testing.T) {
		onA := a.client(t, "acme", "crash")
		conv := createConversation(t, onA)
		c.fake.SetChunkDelay(100 * time.Millisecond) // the answer outlives the kill
		defer c.fake.SetChunkDelay(15 * time.Millisecond)
		id := ask(t, onA, conv, "上传文件最大是多少？")
		_, onB := subscribeWS(t, b.client(t, "acme", "crash"), id, 0)
		waitForDelta(t, onB)
		onC, err := cc.client(t, "acme", "crash").SubscribeSSE(ctxT(t), attemptEventsQuery, map[string]any{"a": id, "s": 0})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-a.done
		killed := time.Now()
		for name, sub := range map[string]*gqlclient.Subscription{"B": onB, "C": onC} {
			events := collectEvents(t, sub)
			last := events[len(events)-1]
			if last.Kind != "FAILED" || last.FailureCode == nil || *last.FailureCode != "INTERRUPTED" {
				t.Fatalf("%s's stream ended with %+v", name, last)
			}
			t.Logf("%s: FAILED(INTERRUPTED) %s after the kill", name, time.Since(killed).Round(10*time.Millisecond))
		}
		var users, assistants int
		if err := c.db.QueryRow(`SELECT count(*) FILTER (WHERE role = 'USER'), count(*) FILTER (WHERE role = 'ASSISTANT') FROM messages WHERE conversation_id = $1`, conv).Scan(&users, &assistants); err != nil {
			t.Fatal(err)
		}
		if users != 1 || assistants != 0 {
			t.Fatalf("after the crash: %d user and %d assistant messages, want the question kept and no invented answer", users, assistants)
		}
	})

	t.Run("stopped instances leave no database connection behind", func(t *testing.T) {
		for _, p := range []*process{b, cc} {
			if err := p.stop(30 * time.Second); err != nil {
				t.Fatalf("stop: %v", err)
			}
		}
		deadline := time.Now().Add(30 * time.Second) // hang guard
		for {
			var n int
			if err := c.db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d connections to the database remain after every instance stopped", n)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// TestClusterSurvivesDatabaseRestart restarts PostgreSQL while an answer
// streams to subscribers on both instances: the answer completes, and each
// subscriber's text equals the saved answer, with nothing lost or repeated.
func TestClusterSurvivesDatabaseRestart(t *testing.T) {
	cluster := testdb.StartCluster(t)
	c := newClusterEnv(t, cluster.Database(), "RAGCHAT_BROKER=postgres")
	c.fake.SetChunkDelay(40 * time.Millisecond) // about 7 s of answer
	ps := c.start(t, 2)
	a, b := ps[0], ps[1]
	onA := a.client(t, "acme", "restart")
	conv := createConversation(t, onA)
	id := ask(t, onA, conv, "上传文件最大是多少？")
	_, subA := subscribeWS(t, onA, id, 0)
	_, subB := subscribeWS(t, b.client(t, "acme", "restart"), id, 0)
	// Both subscriptions are live (their first read done) before the
	// outage: a subscribe that arrives during one is refused UNAVAILABLE,
	// which is not what this test is about.
	readA := waitForDelta(t, subA)
	readB := waitForDelta(t, subB)

	cluster.Stop()
	time.Sleep(time.Second) // an outage, not a blip
	cluster.Start()

	for name, sub := range map[string]*gqlclient.Subscription{"A": subA, "B": subB} {
		events := collectEvents(t, sub)
		if name == "B" {
			events = append(readB, events...)
		} else {
			events = append(readA, events...)
		}
		answer := checkStreamAfterRestart(t, name, events)
		t.Logf("%s: %d events, %d characters", name, len(events), len([]rune(answer)))
	}
}

// checkStreamAfterRestart checks a whole stream like checkStream, reporting
// which subscriber it was.
func checkStreamAfterRestart(t *testing.T, name string, events []servertest.Event) string {
	t.Helper()
	last := events[len(events)-1]
	if last.Kind != "COMPLETED" || last.Attempt == nil {
		t.Fatalf("%s's stream ended with %+v", name, last)
	}
	text := servertest.DeltaText(t, events, 0)
	if text != last.Attempt.Answer {
		t.Fatalf("%s's deltas spell\n%q\nthe answer is\n%q", name, text, last.Attempt.Answer)
	}
	return text
}

// deltas returns the DELTA events.
func deltas(events []servertest.Event) []servertest.Event {
	var out []servertest.Event
	for _, e := range events {
		if e.Kind == "DELTA" {
			out = append(out, e)
		}
	}
	return out
}

// lastSeq is the seq of the last DELTA (0 when none).
func lastSeq(events []servertest.Event) int {
	d := deltas(events)
	if len(d) == 0 {
		return 0
	}
	return d[len(d)-1].Seq
}

// checkSeqsIncrease fails when a DELTA seq repeats or goes back.
func checkSeqsIncrease(t *testing.T, events []servertest.Event) {
	t.Helper()
	prev := 0
	for _, e := range deltas(events) {
		if e.Seq <= prev {
			t.Fatalf("seq %d after %d", e.Seq, prev)
		}
		prev = e.Seq
	}
}

// waitForDelta reads sub until its first DELTA and returns the events it
// read.
func waitForDelta(t *testing.T, sub *gqlclient.Subscription) []servertest.Event {
	t.Helper()
	var read []servertest.Event
	for {
		r, err := sub.Next(ctxT(t))
		if err != nil {
			t.Fatalf("the stream ended before its first delta: %v", err)
		}
		e := servertest.DecodeEvent(t, r)
		read = append(read, e)
		switch e.Kind {
		case "DELTA":
			return read
		case "COMPLETED", "FAILED":
			t.Fatalf("the answer ended before its first delta: %+v", e)
		}
	}
}

// drain empties a notification channel.
func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// waitFeed reads viewerEvents until kind (with status, when given) arrives
// for conv, and reports whether it did within timeout. An event of the
// conversation foreign (another user's) fails the test.
func waitFeed(t *testing.T, sub *gqlclient.Subscription, conv, foreign, kind, status string, timeout time.Duration) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctxT(t), timeout)
	defer cancel()
	for {
		r, err := sub.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return false
			}
			t.Fatalf("viewerEvents: waiting for %s: %v", kind, err)
		}
		var out struct {
			ViewerEvents struct {
				Kind, ConversationID string
				AttemptStatus        *string
			}
		}
		if len(r.Errors) > 0 || r.Decode(&out) != nil {
			t.Fatalf("viewerEvents: %+v", r.Errors)
		}
		ev := out.ViewerEvents
		if ev.ConversationID == foreign {
			t.Fatalf("viewerEvents delivered another user's event (%s of %s)", ev.Kind, foreign)
		}
		if ev.ConversationID == conv && ev.Kind == kind && (status == "" || (ev.AttemptStatus != nil && *ev.AttemptStatus == status)) {
			return true
		}
	}
}

// waitConversationEvent reads conversationEvents until kind (with status,
// when given) arrives, and reports whether it did within timeout.
func waitConversationEvent(t *testing.T, sub *gqlclient.Subscription, kind, status string, timeout time.Duration) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctxT(t), timeout)
	defer cancel()
	for {
		r, err := sub.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return false
			}
			t.Fatalf("conversationEvents: waiting for %s: %v", kind, err)
		}
		var out struct {
			ConversationEvents struct {
				Kind          string
				AttemptStatus *string
			}
		}
		if len(r.Errors) > 0 || r.Decode(&out) != nil {
			t.Fatalf("conversationEvents: %+v", r.Errors)
		}
		ev := out.ConversationEvents
		if ev.Kind == kind && (status == "" || (ev.AttemptStatus != nil && *ev.AttemptStatus == status)) {
			return true
		}
	}
}
