package servertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
)

// Ctx returns a context that ends after a minute or with the test.
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// MustDo runs an operation, fails the test on any GraphQL error and
// decodes the data into out (when not nil).
func MustDo(t testing.TB, c *gqlclient.Client, query string, vars map[string]any, out any) {
	t.Helper()
	r, err := c.Do(Ctx(t), query, vars)
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	if len(r.Errors) > 0 {
		t.Fatalf("graphql errors: %+v", r.Errors)
	}
	if out != nil {
		if err := r.Decode(out); err != nil {
			t.Fatalf("decode: %v", err)
		}
	}
}

// ErrorCode runs an operation that must fail and returns the code of its
// first error and the error.
func ErrorCode(t testing.TB, c *gqlclient.Client, query string, vars map[string]any) (string, gqlclient.Error) {
	t.Helper()
	r, err := c.Do(Ctx(t), query, vars)
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	if len(r.Errors) == 0 {
		t.Fatalf("expected an error, got data %s", r.Data)
	}
	return r.Errors[0].Code(), r.Errors[0]
}

// CreateConversation creates a conversation and returns its id.
func CreateConversation(t testing.TB, c *gqlclient.Client) string {
	t.Helper()
	var out struct{ CreateConversation struct{ ID string } }
	MustDo(t, c, `mutation { createConversation(input: {}) { id } }`, nil, &out)
	return out.CreateConversation.ID
}

var keySeq atomic.Int64

// Ask asks question in conversation with a fresh idempotency key and
// returns the attempt id.
func Ask(t testing.TB, c *gqlclient.Client, conv, question string) string {
	t.Helper()
	var out struct {
		Ask struct{ Attempt struct{ ID string } }
	}
	MustDo(t, c, `mutation($c: ID!, $k: String!, $q: String!) { ask(input: {conversationId: $c, clientMessageId: $k, question: $q}) { attempt { id } } }`,
		map[string]any{"c": conv, "k": fmt.Sprintf("k-%d-%d", time.Now().UnixNano(), keySeq.Add(1)), "q": question}, &out)
	return out.Ask.Attempt.ID
}

// WaitDone polls an attempt until it is no longer PENDING and returns its
// status.
func WaitDone(t testing.TB, c *gqlclient.Client, attempt string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var out struct{ Attempt struct{ Status string } }
		MustDo(t, c, `query($a: ID!) { attempt(id: $a) { status } }`, map[string]any{"a": attempt}, &out)
		if out.Attempt.Status != "PENDING" {
			return out.Attempt.Status
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("attempt %s still PENDING after 30s", attempt)
	return ""
}

// Event is one attemptEvents payload as AttemptEventsQuery selects it.
type Event struct {
	Kind               string
	Seq                int
	Text               *string
	StandaloneQuestion *string
	RequiresHistory    *bool
	Sources            []struct {
		Label     string
		Available bool
		Snippet   *string
	}
	Attempt *struct {
		ID      string
		Status  string
		Answer  string
		RetryOf *struct{ ID string }
	}
	FailureCode *string
}

// AttemptEventsQuery subscribes to an attempt's events ($a, optional $s).
const AttemptEventsQuery = `subscription($a: ID!, $s: Int) { attemptEvents(attemptId: $a, afterSeq: $s) {
	kind seq text standaloneQuestion requiresHistory sources { label available snippet }
	attempt { id status answer retryOf { id } } failureCode } }`

// DecodeEvent decodes one attemptEvents payload.
func DecodeEvent(t testing.TB, r *gqlclient.Response) Event {
	t.Helper()
	if len(r.Errors) > 0 {
		t.Fatalf("subscription errors: %+v", r.Errors)
	}
	var e struct{ AttemptEvents Event }
	if err := r.Decode(&e); err != nil {
		t.Fatalf("decode event: %v", err)
	}
	return e.AttemptEvents
}

// CollectEvents reads a subscription to its end and decodes the events.
func CollectEvents(t testing.TB, sub *gqlclient.Subscription) []Event {
	t.Helper()
	rs, err := sub.Collect(Ctx(t))
	if err != nil {
		t.Fatalf("subscription ended with %v", err)
	}
	out := make([]Event, 0, len(rs))
	for _, r := range rs {
		out = append(out, DecodeEvent(t, r))
	}
	return out
}

// CheckStream asserts the shape of a whole attempt stream (STARTED first,
// contiguous DELTAs without gap or duplicate, COMPLETED last with the
// answer the deltas spell) and returns the answer.
func CheckStream(t testing.TB, events []Event) string {
	t.Helper()
	if len(events) < 3 {
		t.Fatalf("too few events: %+v", events)
	}
	if events[0].Kind != "STARTED" || events[0].StandaloneQuestion == nil {
		t.Fatalf("first event %+v, want STARTED with the standalone question", events[0])
	}
	last := events[len(events)-1]
	if last.Kind != "COMPLETED" || last.Attempt == nil || last.Attempt.Status != "COMPLETED" {
		t.Fatalf("last event %+v, want COMPLETED with the attempt", last)
	}
	text := DeltaText(t, events, 0)
	if text != last.Attempt.Answer {
		t.Fatalf("deltas spell %q, final answer is %q", text, last.Attempt.Answer)
	}
	return text
}

// DeltaText concatenates the DELTA texts of events, checking that their
// seqs continue from after without gap or duplicate.
func DeltaText(t testing.TB, events []Event, after int) string {
	t.Helper()
	var text strings.Builder
	seq := after
	for _, e := range events {
		if e.Kind != "DELTA" {
			continue
		}
		if e.Text == nil {
			t.Fatalf("DELTA without text: %+v", e)
		}
		seq += len([]rune(*e.Text))
		if e.Seq != seq {
			t.Fatalf("DELTA seq %d, want %d (gap or duplicate)", e.Seq, seq)
		}
		text.WriteString(*e.Text)
	}
	return text.String()
}

// CloseCode extracts the WebSocket close code and reason from err.
func CloseCode(err error) (int, string) {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Code, ce.Text
	}
	return 0, ""
}
