package resolvers

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/sourceauth"
)

// fakeEngine answers SourcesOf (the resolver's reauthorise), counting
// calls, and ViewerStamp (the resolver's access stamps); other methods
// are unused.
type fakeEngine struct {
	Engine
	mu     sync.Mutex
	calls  [][]uuid.UUID
	denied map[uuid.UUID]bool
	stamp  uint64
}

func (f *fakeEngine) ViewerStamp(context.Context) uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stamp
}

// change denies ids from now on and moves the access stamp, as an access
// change on any replica does.
func (f *fakeEngine) change(ids ...uuid.UUID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		f.denied[id] = true
	}
	f.stamp++
}

func (f *fakeEngine) SourcesOf(_ context.Context, rows []*ent.Source) ([]sourceauth.View, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []uuid.UUID
	views := make([]sourceauth.View, len(rows))
	for i, s := range rows {
		ids = append(ids, s.ID)
		views[i] = sourceauth.View{Source: s, Available: !f.denied[s.ID]}
	}
	f.calls = append(f.calls, ids)
	return views, nil
}

// TestSourceReauthorisationBatches checks that the first source field
// resolved re-authorises every source the operation loaded in one engine
// call, and that a redacted source shows no snippet, title or document.
func TestSourceReauthorisationBatches(t *testing.T) {
	doc := uuid.New()
	rows := make([]*ent.Source, 5)
	for i := range rows {
		rows[i] = &ent.Source{ID: uuid.New(), Snippet: "secret text", DocumentTitle: "Runbook", DocumentID: &doc}
	}
	eng := &fakeEngine{denied: map[uuid.UUID]bool{rows[2].ID: true}}
	src := &sourceResolver{&Resolver{engine: eng, access: eng, reauthorise: eng.SourcesOf}}
	ctx := WithOperationState(context.Background())
	sourceAuthFrom(ctx).collect(rows) // what the Ent interceptor does on load

	var wg sync.WaitGroup
	for _, s := range rows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := src.Available(ctx, s)
			if err != nil || ok == (s == rows[2]) {
				t.Errorf("source %v: available=%v err=%v", s.ID, ok, err)
			}
		}()
	}
	wg.Wait()
	if len(eng.calls) != 1 || len(eng.calls[0]) != len(rows) {
		t.Fatalf("engine calls %v, want one call with %d sources", eng.calls, len(rows))
	}
	snippet, _ := src.Snippet(ctx, rows[2])
	title, _ := src.DocumentTitle(ctx, rows[2])
	id, _ := src.DocumentID(ctx, rows[2])
	if snippet != nil || title != nil || id != nil {
		t.Fatalf("redacted source shows %v %v %v", snippet, title, id)
	}
	if s, _ := src.Snippet(ctx, rows[0]); s == nil || *s != "secret text" {
		t.Fatalf("readable source snippet %v", s)
	}
	if len(eng.calls) != 1 {
		t.Fatalf("cached views were re-checked: %d calls", len(eng.calls))
	}

	// Without operation state each source is checked on its own.
	if ok, _ := src.Available(context.Background(), rows[1]); !ok || len(eng.calls) != 2 || len(eng.calls[1]) != 1 {
		t.Fatalf("uncached check: calls %v", eng.calls)
	}
}

// TestSourceViewsFollowTheAccessStamp: a subscription's cached verdicts are
// reused while the access stamp holds (no engine call for the next event)
// and checked again, in one call for the event's batch, once it moves;
// verdicts primed under an older stamp than the cache's are not used.
func TestSourceViewsFollowTheAccessStamp(t *testing.T) {
	doc := uuid.New()
	rows := make([]*ent.Source, 3)
	for i := range rows {
		rows[i] = &ent.Source{ID: uuid.New(), Snippet: "secret text", DocumentTitle: "Runbook", DocumentID: &doc}
	}
	eng := &fakeEngine{denied: map[uuid.UUID]bool{}}
	src := &sourceResolver{&Resolver{engine: eng, access: eng, reauthorise: eng.SourcesOf}}
	ctx := WithOperationState(context.Background())
	event := func() []bool { // one event that loads and shows the rows
		sourceAuthFrom(ctx).collect(rows)
		out := make([]bool, len(rows))
		for i, s := range rows {
			ok, err := src.Available(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = ok
		}
		return out
	}
	steps := []struct {
		name   string
		before func()
		want   []bool
		calls  int // engine calls so far
	}{
		{"first event", func() {}, []bool{true, true, true}, 1},
		{"nothing changed", func() {}, []bool{true, true, true}, 1},
		{"access changed", func() { eng.change(rows[1].ID) }, []bool{true, false, true}, 2},
		{"nothing changed since", func() {}, []bool{true, false, true}, 2},
		{"primed under an older stamp", func() {
			sourceAuthFrom(ctx).prime([]sourceauth.View{{Source: rows[1], Available: true}}, 0)
		}, []bool{true, false, true}, 2},
	}
	for _, st := range steps {
		st.before()
		if got := event(); !slices.Equal(got, st.want) {
			t.Errorf("%s: available %v, want %v", st.name, got, st.want)
		}
		if len(eng.calls) != st.calls {
			t.Errorf("%s: %d engine calls, want %d", st.name, len(eng.calls), st.calls)
		}
	}
}
