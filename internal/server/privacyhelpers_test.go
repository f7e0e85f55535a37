package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// eachBackend runs fn against an in-process server on PostgreSQL and on
// SQLite.
func eachBackend(t *testing.T, o servertest.Options, fn func(t *testing.T, h *servertest.Harness)) {
	t.Helper()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			fn(t, servertest.Start(t, b, o))
		})
	}
}

// sysCtx is the context of a test reading the database behind the API.
func sysCtx() context.Context {
	return viewer.SystemJobContext(context.Background(), viewer.JobPurge)
}

// attemptRows are the ids of everything an answered attempt consists of.
type attemptRows struct {
	Conversation, Attempt, Question, Answer string
	Sources, Feedback                       []string
}

// answered asks question in a new conversation of c, waits for the
// answer, rates it (when rate) and returns the ids of every row.
func answered(t *testing.T, c *gqlclient.Client, question string, rate bool) attemptRows {
	t.Helper()
	conv := createConversation(t, c)
	a := ask(t, c, conv, question)
	if s := waitDone(t, c, a); s != "COMPLETED" {
		t.Fatalf("attempt ended %s", s)
	}
	if rate {
		mustDo(t, c, `mutation($a: ID!) { submitFeedback(input: {attemptId: $a, rating: DOWN, reasons: [OTHER], comment: "c"}) { id } }`,
			map[string]any{"a": a}, nil)
	}
	var out struct {
		Attempt struct {
			UserMessage      struct{ ID string }
			AssistantMessage struct{ ID string }
			Sources          []struct{ ID string }
			Feedback         []struct{ ID string }
		}
	}
	mustDo(t, c, `query($a: ID!) { attempt(id: $a) { userMessage { id } assistantMessage { id } sources { id } feedback { id } } }`,
		map[string]any{"a": a}, &out)
	r := attemptRows{Conversation: conv, Attempt: a, Question: out.Attempt.UserMessage.ID, Answer: out.Attempt.AssistantMessage.ID}
	for _, s := range out.Attempt.Sources {
		r.Sources = append(r.Sources, s.ID)
	}
	for _, f := range out.Attempt.Feedback {
		r.Feedback = append(r.Feedback, f.ID)
	}
	if len(r.Sources) == 0 || (rate && len(r.Feedback) == 0) {
		t.Fatalf("the attempt lacks sources or feedback: %+v", r)
	}
	return r
}

// ids lists every row id of r by kind.
func (r attemptRows) ids() map[string]string {
	out := map[string]string{
		"conversation": r.Conversation, "attempt": r.Attempt,
		"question": r.Question, "answer": r.Answer, "source": r.Sources[0],
	}
	if len(r.Feedback) > 0 {
		out["feedback"] = r.Feedback[0]
	}
	return out
}

// rawErrors posts one operation and returns its errors as the exact JSON
// the server sent, one element per error.
func rawErrors(t *testing.T, c *gqlclient.Client, query string, vars map[string]any) []json.RawMessage {
	t.Helper()
	body, err := json.Marshal(gqlclient.Request{Query: query, Variables: vars})
	if err != nil {
		t.Fatal(err)
	}
	_, raw, err := c.PostRaw(ctxT(t), body, nil)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Errors []json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return r.Errors
}

// subscriptionErrors runs a subscription over SSE to its end and returns
// the codes of its errors and whether any payload carried data.
func subscriptionErrors(t *testing.T, c *gqlclient.Client, query string, vars map[string]any) (codes []string, data bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctxT(t), 20*time.Second)
	defer cancel()
	sub, err := c.SubscribeSSE(ctx, query, vars)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Stop()
	rs, err := sub.Collect(ctx)
	if err != nil {
		t.Fatalf("%s: the stream did not end: %v", query, err)
	}
	for _, r := range rs {
		codes = append(codes, r.Codes()...)
		if len(r.Data) > 0 && string(r.Data) != "null" && len(r.Errors) == 0 {
			data = true
		}
	}
	return codes, data
}

// adminReads counts the admin-read audit events of each conversation.
func adminReads(t *testing.T, h *servertest.Harness) map[string]int {
	t.Helper()
	evs, err := h.DB.Client.AuditEvent.Query().Where(auditevent.Action("conversation.admin_read")).All(sysCtx())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range evs {
		out[e.TargetID]++
	}
	return out
}
