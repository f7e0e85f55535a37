package server_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestMetrics answers a question and checks that /metrics counts the ask,
// the attempt by outcome and model, TTFT and tokens, and that no label
// carries an id or text.
func TestMetrics(t *testing.T) {
	h := start(t, servertest.Options{})
	c := h.Client(t, "alice")
	conv := createConversation(t, c)
	a := ask(t, c, conv, "上传文件最大是多少？")
	sub, err := c.SubscribeSSE(ctxT(t), attemptEventsQuery, map[string]any{"a": a})
	if err != nil {
		t.Fatal(err)
	}
	checkStream(t, collectEvents(t, sub))
	errorCode(t, c, `{ conversation(id: "01900000-0000-7000-8000-000000000000") { id } }`, nil)

	res, err := http.Get(strings.TrimSuffix(h.URL, "/graphql") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	text := string(body)
	for _, want := range []string{
		`ragchat_asks_total{kind="ask"} 1`,
		`ragchat_attempts_total{failure_code="",model="offline-extractive-1",outcome="completed"} 1`,
		`ragchat_attempt_ttft_seconds_count{model="offline-extractive-1"} 1`,
		`ragchat_tokens_total{kind="completion",model="offline-extractive-1"}`,
		`ragchat_graphql_operations_total{outcome="ok",type="mutation"}`,
		`ragchat_graphql_operations_total{outcome="ok",type="subscription"} 1`,
		`ragchat_graphql_errors_total{code="NOT_FOUND"} 1`,
		`ragchat_active_subscriptions{kind="attempt"} 0`,
		`go_goroutines`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	uuid := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	if m := uuid.FindString(text); m != "" {
		t.Errorf("/metrics carries an id: %s", m)
	}
}
