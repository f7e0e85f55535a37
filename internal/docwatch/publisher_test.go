package docwatch_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/docwatch"
)

// receive returns the next batch of tenant on sub, failing after a
// generous deadline.
func receive(t *testing.T, sub *broker.Subscription, tenant string) docwatch.Batch {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-sub.C():
			if b, ok := docwatch.Decode(ev, tenant); ok {
				return b
			}
		case <-deadline:
			t.Fatal("no broadcast")
		}
	}
}

func ids(n int) []uuid.UUID {
	out := make([]uuid.UUID, n)
	for i := range out {
		out[i] = uuid.New()
	}
	return out
}

// TestBroadcastsAreCoalescedPerTenant: a burst of changes of one tenant
// yields at most ceil(elapsed/interval)+1 broadcasts, which together name
// every changed document once; past MaxIDs a broadcast says Many; another
// tenant's topic hears nothing of it.
func TestBroadcastsAreCoalescedPerTenant(t *testing.T) {
	cases := []struct {
		name    string
		changes int  // documents changed
		oneCall bool // all in one call (else one call per document)
		many    bool
	}{
		{"a burst of 50 changes of one document each", 50, false, false},
		// One call, so that the first broadcast (sent at once) holds them
		// all whatever the machine's speed: a burst of calls may span an
		// interval on a busy machine and split into lists under MaxIDs.
		{"more documents than a broadcast lists", docwatch.MaxIDs + 10, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := broker.NewMemory(broker.MemoryOptions{})
			defer b.Close()
			const interval = 50 * time.Millisecond
			p := docwatch.NewPublisher(b, docwatch.Options{Interval: interval})
			defer p.Close()
			sub, err := b.Subscribe(context.Background(), docwatch.Topic("t1"))
			require.NoError(t, err)
			defer sub.Close()
			other, err := b.Subscribe(context.Background(), docwatch.Topic("t2"))
			require.NoError(t, err)
			defer other.Close()

			docs := ids(tc.changes)
			start := time.Now()
			if tc.oneCall {
				p.Changed("t1", docs)
			} else {
				for _, d := range docs {
					p.Changed("t1", []uuid.UUID{d})
				}
			}
			seen := map[uuid.UUID]bool{}
			sawMany := false
			for !sawMany && len(seen) < len(docs) {
				batch := receive(t, sub, "t1")
				sawMany = sawMany || batch.Many
				for _, d := range batch.Docs {
					assert.False(t, seen[d], "a document is listed once")
					seen[d] = true
				}
				assert.LessOrEqual(t, len(batch.Docs), docwatch.MaxIDs)
			}
			elapsed := time.Since(start)
			bound := uint64(math.Ceil(float64(elapsed)/float64(interval))) + 1
			assert.LessOrEqual(t, p.Broadcasts(), bound, "broadcasts in %s", elapsed)
			assert.Equal(t, tc.many, sawMany)
			select {
			case ev := <-other.C():
				t.Fatalf("another tenant heard %v", ev)
			default:
			}
		})
	}
}

// TestChangedNeverWaitsForTheBroker: Changed returns at once even while
// a broadcast is due, and Close stops pending broadcasts.
func TestChangedNeverWaitsForTheBroker(t *testing.T) {
	b := broker.NewMemory(broker.MemoryOptions{})
	defer b.Close()
	p := docwatch.NewPublisher(b, docwatch.Options{Interval: time.Hour})
	p.Changed("t1", ids(1)) // sent at once
	for range 1000 {
		p.Changed("t1", ids(1)) // due in an hour
	}
	p.Close()
	assert.LessOrEqual(t, p.Broadcasts(), uint64(1))
}
