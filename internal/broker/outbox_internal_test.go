package broker

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testOutbox(size int) *outbox {
	return newOutbox(Options{QueueSize: size, MaxMergeBytes: 64}.withDefaults())
}

func delta(topic, text string, seq int) Event {
	return Event{Topic: topic, Kind: KindDelta, Seq: seq, Data: []byte(`{"t":"` + text + `"}`)}
}

// queued describes the live queue as "topic/kind/first-last".
func queued(q *outbox) []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []string
	for _, it := range q.items {
		if it.dropped {
			continue
		}
		kind := it.ev.Kind
		if it.op == opRetire {
			kind = "RETIRE"
		}
		out = append(out, fmt.Sprintf("%s/%s/%d-%d", it.ev.Topic, kind, it.first, it.last))
	}
	return out
}

func TestOutboxMergesOnlyContiguousDeltasOfATopic(t *testing.T) {
	q := testOutbox(100)
	q.push(delta("a", "x", 1), 1)
	q.push(delta("a", "y", 2), 2)
	q.push(delta("b", "z", 1), 1)
	q.push(delta("a", "w", 3), 3) // merges across another topic's event
	q.push(Event{Topic: "a", Kind: "SOURCES"}, 4)
	q.push(delta("a", "v", 4), 5) // not across a non-DELTA
	q.pushRetire("a")
	q.push(delta("a", "u", 5), 6)                                                          // not across a retirement
	q.push(delta("a", "t", 6), 8)                                                          // not across a missing offset
	q.push(delta("a", "0123456789012345678901234567890123456789012345678901234567", 7), 9) // not past MaxMergeBytes
	assert.Equal(t, []string{
		"a/DELTA/1-3", "b/DELTA/1-1", "a/SOURCES/4-4", "a/DELTA/5-5", "a/RETIRE/0-0",
		"a/DELTA/6-6", "a/DELTA/8-8", "a/DELTA/9-9",
	}, queued(q))
	assert.Equal(t, uint64(2), q.merged.Load())
	q.mu.Lock()
	assert.JSONEq(t, `{"t":"xyw"}`, string(q.items[0].ev.Data))
	assert.Equal(t, 3, q.items[0].ev.Seq)
	q.mu.Unlock()

	// A taken item is no merge target any more.
	batch, _ := q.take(1, 1<<20)
	require.Len(t, batch, 1)
	q.push(delta("b", "y", 2), 2)
	assert.Equal(t, "b/DELTA/1-2", queued(q)[0], "b's queued delta still merges")
	q.take(100, 1<<20)
	q.push(delta("a", "s", 8), 10)
	assert.Equal(t, []string{"a/DELTA/10-10"}, queued(q))
}

func TestOutboxDropsDeltasFirstAndRemembersLosses(t *testing.T) {
	q := testOutbox(3)
	q.push(delta("a", "1", 1), 1)
	q.push(Event{Topic: "b", Kind: "STARTED"}, 1)
	q.push(delta("c", "1", 1), 1)
	// Full: a new DELTA is dropped.
	q.push(delta("d", "1", 1), 1)
	assert.Equal(t, uint64(1), q.dropped.Load())
	// A terminal event evicts the oldest queued DELTA.
	q.push(Event{Topic: "b", Kind: "COMPLETED"}, 2)
	assert.Equal(t, []string{"b/STARTED/1-1", "c/DELTA/1-1", "b/COMPLETED/2-2"}, queued(q))
	q.push(Event{Topic: "e", Kind: "FAILED"}, 1)
	q.pushRetire("b")
	assert.Equal(t, []string{"b/STARTED/1-1", "b/COMPLETED/2-2", "e/FAILED/1-1", "b/RETIRE/0-0"}, queued(q))
	assert.Equal(t, uint64(3), q.dropped.Load())
	// No DELTA left: others queue up to twice the size, then are dropped.
	q.push(Event{Topic: "f", Kind: "FAILED"}, 1)
	q.push(Event{Topic: "g", Kind: "FAILED"}, 7)
	assert.Equal(t, 6, q.len())
	assert.Equal(t, uint64(0), q.droppedPriority.Load())
	q.push(Event{Topic: "h", Kind: "FAILED"}, 1)
	assert.Equal(t, uint64(1), q.droppedPriority.Load())
	assert.Equal(t, 6, q.len())

	// The losses travel with the batch that empties the queue.
	batch, lost := q.take(4, 1<<20)
	assert.Len(t, batch, 4)
	assert.Nil(t, lost)
	batch, lost = q.take(100, 1<<20)
	assert.Len(t, batch, 2)
	assert.Equal(t, map[string]int64{"a": 1, "c": 1, "d": 1, "h": 1}, lost)
	batch, lost = q.take(100, 1<<20)
	assert.Empty(t, batch)
	assert.Nil(t, lost)
}

func TestOutboxTakeBoundsBatches(t *testing.T) {
	q := testOutbox(100)
	for i := range 10 {
		q.push(Event{Topic: fmt.Sprint(i), Kind: "MESSAGE", Data: make([]byte, 100)}, 1)
	}
	batch, _ := q.take(3, 1<<20)
	assert.Len(t, batch, 3)
	batch, _ = q.take(100, 250)
	assert.Len(t, batch, 3, "stops once the batch holds about maxBytes")
	assert.Equal(t, 4, q.len())
	q.close()
	q.push(delta("x", "y", 1), 1)
	assert.Equal(t, 4, q.len(), "a closed outbox takes nothing")
}
