package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// lockedBuffer is a goroutine-safe log sink.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestLogsCarryTraceIDsWithoutContent checks that every request is logged
// as JSON with its trace id (echoed in the Trace-Id header and stored on
// the attempt), and that no log line carries the question, the answer or
// the token, even at debug level.
func TestLogsCarryTraceIDsWithoutContent(t *testing.T) {
	var logs lockedBuffer
	h := start(t, servertest.Options{Log: &logs})
	c := h.Client(t, "alice")
	conv := createConversation(t, c)
	const question = "上传文件最大是多少？ marker-7f3a"
	body, _ := json.Marshal(gqlclient.Request{
		Query:     `mutation($c: ID!, $q: String!) { ask(input: {conversationId: $c, clientMessageId: "log-1", question: $q}) { attempt { id } } }`,
		Variables: map[string]any{"c": conv, "q": question},
	})
	req, _ := http.NewRequest(http.MethodPost, h.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
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
	if got := res.Header.Get("Trace-Id"); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("Trace-Id %q does not continue the traceparent", got)
	}
	waitDone(t, c, out.Ask.Attempt.ID)
	var stored struct{ Attempt struct{ TraceID string } }
	mustDo(t, c, `query($a: ID!) { attempt(id: $a) { traceId } }`, map[string]any{"a": out.Ask.Attempt.ID}, &stored)
	if stored.Attempt.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("attempt trace id %q", stored.Attempt.TraceID)
	}

	text := logs.String()
	if !strings.Contains(text, `"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"`) {
		t.Errorf("no log line carries the request's trace id:\n%s", text)
	}
	for _, secret := range []string{"marker-7f3a", "20MB", c.Token} {
		if strings.Contains(text, secret) {
			t.Errorf("logs contain %q", secret)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if !json.Valid([]byte(line)) {
			t.Fatalf("not a JSON log line: %s", line)
		}
	}
}
