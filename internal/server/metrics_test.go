package server_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

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

	// The attempt's metrics are recorded as it completes, which may be
	// just after the subscriber saw COMPLETED: read /metrics until they
	// are all there (the deadline is only a hang guard).
	wants := []string{
		`ragchat_asks_total{kind="ask"} 1`,
		`ragchat_attempts_total{failure_code="",model="offline-extractive-1",outcome="completed"} 1`,
		`ragchat_attempt_ttft_seconds_count{model="offline-extractive-1"} 1`,
		`ragchat_tokens_total{kind="completion",model="offline-extractive-1"}`,
		`ragchat_graphql_operations_total{outcome="ok",type="mutation"}`,
		`ragchat_graphql_operations_total{outcome="ok",type="subscription"} 1`,
		`ragchat_graphql_errors_total{code="NOT_FOUND"} 1`,
		`ragchat_active_subscriptions{kind="attempt"} 0`,
		`go_goroutines`,
	}
	var text string
	var missing []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		text, missing = scrapeMetrics(t, h.URL), nil
		for _, want := range wants {
			if !strings.Contains(text, want) {
				missing = append(missing, want)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, m := range missing {
		t.Errorf("/metrics lacks %s", m)
	}
	uuid := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	if m := uuid.FindString(text); m != "" {
		t.Errorf("/metrics carries an id: %s", m)
	}
}

// scrapeMetrics returns the text of the server's /metrics.
func scrapeMetrics(t *testing.T, graphqlURL string) string {
	t.Helper()
	res, err := http.Get(strings.TrimSuffix(graphqlURL, "/graphql") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return string(body)
}
