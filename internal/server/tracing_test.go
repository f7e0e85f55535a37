package server_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/tracing"
)

// otlpReceiver is an in-process OTLP/HTTP trace receiver: it decodes each
// protobuf ExportTraceServiceRequest and keeps its spans.
type otlpReceiver struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	service string
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil || req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	var export collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &export); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range export.ResourceSpans {
		for _, a := range rs.GetResource().GetAttributes() {
			if a.Key == "service.name" {
				r.service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			r.spans = append(r.spans, ss.Spans...)
		}
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// trace returns the spans received for trace id (hex), by name.
func (r *otlpReceiver) trace(id string) map[string][]*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][]*tracepb.Span{}
	for _, s := range r.spans {
		if hex.EncodeToString(s.TraceId) == id {
			out[s.Name] = append(out[s.Name], s)
		}
	}
	return out
}

// all returns every span received.
func (r *otlpReceiver) all() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

// startTracing points the OTLP exporter at an in-process receiver and
// returns the provider (from tracing.Setup, as ragchat serve builds it)
// and the receiver.
func startTracing(t *testing.T) (*otlpReceiver, func(context.Context) error, *servertest.Options) {
	t.Helper()
	recv := &otlpReceiver{}
	hs := httptest.NewServer(recv)
	t.Cleanup(hs.Close)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", hs.URL)
	t.Setenv("OTEL_SERVICE_NAME", "ragchat-test")
	tp, shutdown, err := tracing.Setup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	flusher, ok := tp.(interface{ ForceFlush(context.Context) error })
	if !ok {
		t.Fatalf("tracing.Setup returned %T with OTEL_EXPORTER_OTLP_ENDPOINT set", tp)
	}
	return recv, flusher.ForceFlush, &servertest.Options{TracerProvider: tp}
}

// awaitSpans flushes the provider until the trace holds every named span
// (the background run's spans end after the attempt is saved).
func awaitSpans(t *testing.T, recv *otlpReceiver, flush func(context.Context) error, id string, names ...string) map[string][]*tracepb.Span {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := flush(context.Background()); err != nil {
			t.Fatalf("flush: %v", err)
		}
		got := recv.trace(id)
		missing := ""
		for _, n := range names {
			if len(got[n]) == 0 {
				missing = n
				break
			}
		}
		if missing == "" {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("trace %s has no span %q after 30s; it has %v", id, missing, spanNames(got))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func spanNames(m map[string][]*tracepb.Span) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	return out
}

// one returns the single span called name.
func one(t *testing.T, spans map[string][]*tracepb.Span, name string) *tracepb.Span {
	t.Helper()
	if len(spans[name]) != 1 {
		t.Fatalf("%d spans %q, want 1", len(spans[name]), name)
	}
	return spans[name][0]
}

// intAttr returns span's integer attribute key.
func intAttr(s *tracepb.Span, key string) (int64, bool) {
	for _, a := range s.Attributes {
		if a.Key == key {
			v, ok := a.GetValue().GetValue().(*commonpb.AnyValue_IntValue)
			return v.IntValue, ok
		}
	}
	return 0, false
}

// strAttr returns span's string attribute key.
func strAttr(s *tracepb.Span, key string) string {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.GetValue().GetStringValue()
		}
	}
	return ""
}

// askSteps are the ask's spans under its background run (ask.answer).
var askSteps = []string{"ask.window", "ask.rewrite", "ask.retrieve", "ask.assemble", "ask.model", "ask.stream", "ask.complete"}

// TestTracesOfOneAsk exports the traces of one ask, sent over HTTP with a
// W3C traceparent, to an in-process OTLP receiver, on both backends, and
// checks the tree: the operation span is a child of the incoming parent,
// the ask's request steps and its background run are children of the
// operation span, and every pipeline step is a child of the run; every
// span keeps the incoming trace id, which is the attempt's traceId; no
// span carries the question or the answer.
func TestTracesOfOneAsk(t *testing.T) {
	recv, flush, opts := startTracing(t)
	eachBackend(t, *opts, func(t *testing.T, h *servertest.Harness) {
		c := h.Client(t, "alice")
		conv := createConversation(t, c)
		traceID := tracing.NewTraceID().String()
		parentSpan := "00f067aa0ba902b7"
		const question = "上传文件最大是多少？ trace-marker-91c2"
		body, _ := json.Marshal(gqlclient.Request{
			Query:     `mutation Ask($c: ID!, $q: String!) { ask(input: {conversationId: $c, clientMessageId: "trace-1", question: $q}) { attempt { id } } }`,
			Variables: map[string]any{"c": conv, "q": question},
		})
		req, _ := http.NewRequest(http.MethodPost, h.URL, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+c.Token)
		req.Header.Set("traceparent", "00-"+traceID+"-"+parentSpan+"-01")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var r gqlclient.Response
		_ = json.NewDecoder(res.Body).Decode(&r)
		res.Body.Close()
		var out struct {
			Ask struct{ Attempt struct{ ID string } }
		}
		if err := r.Decode(&out); err != nil {
			t.Fatal(err)
		}
		if got := res.Header.Get("Trace-Id"); got != traceID {
			t.Errorf("Trace-Id %q, want the traceparent's %s", got, traceID)
		}
		if s := waitDone(t, c, out.Ask.Attempt.ID); s != "COMPLETED" {
			t.Fatalf("attempt ended %s", s)
		}
		var stored struct {
			Attempt struct{ TraceID, Answer string }
		}
		mustDo(t, c, `query($a: ID!) { attempt(id: $a) { traceId answer } }`, map[string]any{"a": out.Ask.Attempt.ID}, &stored)
		if stored.Attempt.TraceID != traceID {
			t.Errorf("attempt traceId %q, want the trace's id %s", stored.Attempt.TraceID, traceID)
		}

		spans := awaitSpans(t, recv, flush, traceID, append([]string{"graphql.operation mutation Ask", "ask.answer"}, askSteps...)...)
		op := one(t, spans, "graphql.operation mutation Ask")
		if got := hex.EncodeToString(op.ParentSpanId); got != parentSpan {
			t.Errorf("operation span's parent %s, want the traceparent's %s", got, parentSpan)
		}
		if strAttr(op, "graphql.operation.type") != "mutation" || strAttr(op, "graphql.operation.name") != "Ask" {
			t.Errorf("operation attributes %v", op.Attributes)
		}
		if op.Kind != tracepb.Span_SPAN_KIND_SERVER {
			t.Errorf("operation span kind %v", op.Kind)
		}
		for _, name := range []string{"ask.load", "ask.authorise", "ask.create", "ask.answer"} {
			if s := one(t, spans, name); !bytes.Equal(s.ParentSpanId, op.SpanId) {
				t.Errorf("%s is not a child of the operation span", name)
			}
		}
		run := one(t, spans, "ask.answer")
		if strAttr(run, "ragchat.attempt.id") == "" || strAttr(run, "ragchat.outcome") != "completed" {
			t.Errorf("ask.answer attributes %v", run.Attributes)
		}
		for _, name := range askSteps {
			if s := one(t, spans, name); !bytes.Equal(s.ParentSpanId, run.SpanId) {
				t.Errorf("%s is not a child of ask.answer", name)
			}
		}
		if n, ok := intAttr(one(t, spans, "ask.retrieve"), "ragchat.retrieve.chunks"); !ok || n == 0 {
			t.Errorf("ask.retrieve chunks %d (%v)", n, ok)
		}
		if strAttr(one(t, spans, "ask.retrieve"), "ragchat.retrieve.statement") == "" {
			t.Error("ask.retrieve names no statement")
		}
		for _, key := range []string{"ragchat.prompt.tokens.system", "ragchat.prompt.tokens.question", "ragchat.prompt.tokens.evidence", "ragchat.prompt.tokens.total"} {
			if n, ok := intAttr(one(t, spans, "ask.assemble"), key); !ok || n <= 0 {
				t.Errorf("ask.assemble %s = %d (%v)", key, n, ok)
			}
		}
		if _, ok := intAttr(one(t, spans, "ask.model"), "ragchat.model.time_to_first_token_ms"); !ok {
			t.Error("ask.model has no time to first token")
		}
		if n, ok := intAttr(one(t, spans, "ask.stream"), "ragchat.stream.deltas"); !ok || n == 0 {
			t.Errorf("ask.stream deltas %d (%v)", n, ok)
		}
		for name, ss := range spans {
			for _, s := range ss {
				if hex.EncodeToString(s.TraceId) != traceID {
					t.Errorf("%s left the trace", name)
				}
			}
		}
		if recv.service != "ragchat-test" {
			t.Errorf("service.name %q, want OTEL_SERVICE_NAME's", recv.service)
		}
		answer := []rune(stored.Attempt.Answer)
		if len(answer) < 12 {
			t.Fatalf("answer %q too short to look for", stored.Attempt.Answer)
		}
		assertNoText(t, recv.all(), "trace-marker-91c2", "上传文件", string(answer[:12]), string(answer[len(answer)-12:]))
	})
}

// TestTracesOverWebSocket checks, on both WebSocket protocols, that the
// traceparent of a connection_init payload (top level, or in "headers")
// is the parent of the operations on that socket, and their attempts'
// traceId its id.
func TestTracesOverWebSocket(t *testing.T) {
	recv, flush, opts := startTracing(t)
	h := start(t, *opts)
	c := h.Client(t, "alice")
	cases := []struct {
		name, protocol string
		payload        func(traceparent string) map[string]any
	}{
		{"graphql-transport-ws headers.traceparent", gqlclient.ProtocolTransportWS, func(tp string) map[string]any {
			return map[string]any{"Authorization": "Bearer " + c.Token, "headers": map[string]any{"traceparent": tp}}
		}},
		{"legacy graphql-ws traceparent", gqlclient.ProtocolLegacyWS, func(tp string) map[string]any {
			return map[string]any{"Authorization": "Bearer " + c.Token, "traceparent": tp}
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conv := createConversation(t, c)
			traceID := tracing.NewTraceID().String()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ws, err := c.DialWS(ctx, gqlclient.WSOptions{Protocol: tc.protocol, Payload: tc.payload("00-" + traceID + "-1111111111111111-01")})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			sub, err := ws.Subscribe(`mutation AskWS($c: ID!, $k: String!) { ask(input: {conversationId: $c, clientMessageId: $k, question: "How do I reset my password?"}) { attempt { id traceId } } }`,
				map[string]any{"c": conv, "k": fmt.Sprintf("ws-%d", i)})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := sub.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Ask struct{ Attempt struct{ ID, TraceID string } }
			}
			if err := resp.Decode(&out); err != nil {
				t.Fatal(err)
			}
			if out.Ask.Attempt.TraceID != traceID {
				t.Errorf("attempt traceId %q, want connection_init's %s", out.Ask.Attempt.TraceID, traceID)
			}
			waitDone(t, c, out.Ask.Attempt.ID)
			spans := awaitSpans(t, recv, flush, traceID, "graphql.operation mutation AskWS", "ask.answer", "ask.complete")
			if got := hex.EncodeToString(one(t, spans, "graphql.operation mutation AskWS").ParentSpanId); got != "1111111111111111" {
				t.Errorf("operation span's parent %s, want connection_init's", got)
			}
		})
	}
}

// traceparentTransport adds a traceparent header to every request.
type traceparentTransport struct {
	base        http.RoundTripper
	traceparent string
}

func (t traceparentTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("traceparent", t.traceparent)
	return t.base.RoundTrip(req)
}

// TestTracesOverSSE checks that the traceparent header of a graphql-sse
// request is the parent of its subscription's operation span.
func TestTracesOverSSE(t *testing.T) {
	recv, flush, opts := startTracing(t)
	h := start(t, *opts)
	c := h.Client(t, "alice")
	a := ask(t, c, createConversation(t, c), "How do I reset my password?")
	waitDone(t, c, a)
	traceID := tracing.NewTraceID().String()
	c.HTTP = &http.Client{Transport: traceparentTransport{base: http.DefaultTransport, traceparent: "00-" + traceID + "-2222222222222222-01"}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sub, err := c.SubscribeSSE(ctx, `subscription Events($a: ID!) { attemptEvents(attemptId: $a) { kind } }`, map[string]any{"a": a})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Stop()
	if _, err := sub.Collect(ctx); err != nil {
		t.Fatal(err)
	}
	spans := awaitSpans(t, recv, flush, traceID, "graphql.operation subscription Events")
	op := one(t, spans, "graphql.operation subscription Events")
	if got := hex.EncodeToString(op.ParentSpanId); got != "2222222222222222" {
		t.Errorf("operation span's parent %s, want the traceparent's", got)
	}
	if strAttr(op, "graphql.operation.type") != "subscription" {
		t.Errorf("operation attributes %v", op.Attributes)
	}
}

// TestTraceIDWithoutTraceparent checks that a request without traceparent
// gets one trace id for its Trace-Id header, its operation span and the
// attempt it creates.
func TestTraceIDWithoutTraceparent(t *testing.T) {
	recv, flush, opts := startTracing(t)
	h := start(t, *opts)
	c := h.Client(t, "alice")
	conv := createConversation(t, c)
	body, _ := json.Marshal(gqlclient.Request{
		Query:     `mutation Plain($c: ID!) { ask(input: {conversationId: $c, clientMessageId: "plain-1", question: "How do I reset my password?"}) { attempt { id traceId } } }`,
		Variables: map[string]any{"c": conv},
	})
	req, _ := http.NewRequest(http.MethodPost, h.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var r gqlclient.Response
	_ = json.NewDecoder(res.Body).Decode(&r)
	res.Body.Close()
	var out struct {
		Ask struct{ Attempt struct{ ID, TraceID string } }
	}
	if err := r.Decode(&out); err != nil {
		t.Fatal(err)
	}
	id := res.Header.Get("Trace-Id")
	if len(id) != 32 || out.Ask.Attempt.TraceID != id {
		t.Fatalf("Trace-Id %q, attempt traceId %q", id, out.Ask.Attempt.TraceID)
	}
	waitDone(t, c, out.Ask.Attempt.ID)
	spans := awaitSpans(t, recv, flush, id, "graphql.operation mutation Plain", "ask.complete")
	if op := one(t, spans, "graphql.operation mutation Plain"); len(op.ParentSpanId) != 0 {
		t.Errorf("operation span has parent %x without a traceparent", op.ParentSpanId)
	}
}

// assertNoText fails when any span's name, attribute or event carries one
// of texts.
func assertNoText(t *testing.T, spans []*tracepb.Span, texts ...string) {
	t.Helper()
	for _, s := range spans {
		raw, err := protojson.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range texts {
			if text != "" && (strings.Contains(string(raw), text) || strings.Contains(s.Name, text)) {
				t.Errorf("span %s carries %q", s.Name, text)
			}
		}
	}
}
