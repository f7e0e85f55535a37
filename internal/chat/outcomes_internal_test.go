package chat

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
)

// TestRecentOutcomes: a finished row is served (as a copy) for outcomeTTL,
// then forgotten; at most maxOutcomes rows are kept, the oldest going
// first.
func TestRecentOutcomes(t *testing.T) {
	var o recentOutcomes
	t0 := time.Now()
	a := &ent.Attempt{ID: uuid.New(), Status: attempt.StatusCOMPLETED, Answer: "x"}
	o.put(a, nil, t0)
	got, ok := o.get(a.ID, t0.Add(outcomeTTL))
	if !ok || got.Answer != "x" || got == a {
		t.Fatalf("get within the TTL = %v, %v; want a copy of the row", got, ok)
	}
	if _, ok := o.get(a.ID, t0.Add(outcomeTTL+time.Second)); ok {
		t.Fatal("a row older than the TTL was served")
	}
	if len(o.rows) != 0 || len(o.order) != 0 {
		t.Fatalf("expired rows kept: %d, %d", len(o.rows), len(o.order))
	}
	first := uuid.New()
	o.put(&ent.Attempt{ID: first}, nil, t0)
	for range maxOutcomes {
		o.put(&ent.Attempt{ID: uuid.New()}, nil, t0)
	}
	if len(o.rows) != maxOutcomes || len(o.order) != maxOutcomes {
		t.Fatalf("kept %d rows (%d in order), want %d", len(o.rows), len(o.order), maxOutcomes)
	}
	if _, ok := o.get(first, t0); ok {
		t.Fatal("the oldest row was not dropped first")
	}
}
