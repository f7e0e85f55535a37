package broker

import (
	"sync"
	"sync/atomic"
)

// outOp is what an outbound item asks other instances to do.
type outOp uint8

const (
	opEvent  outOp = iota // relay an event
	opRetire              // retire a topic
)

// outItem is one entry of the outbound queue: an event (possibly several
// merged DELTAs, covering origin offsets first..last) or a retirement.
type outItem struct {
	op          outOp
	ev          Event
	first, last int64
	droppable   bool
	dropped     bool // evicted while queued; skipped when sent
}

// outbox is the bounded queue between Publish and the sender goroutine.
// Publish never waits on it: push takes a mutex for O(1) work (O(queue) to
// evict, only when full).
//
// When it holds size items, a new droppable event (a DELTA) is dropped; a
// new event that may not be dropped evicts the oldest queued droppable one
// instead, or, when none is left, is still queued up to twice size, and
// only dropped beyond that. Every drop is counted and remembered per topic
// (lost), so that the other instances learn of it with the next batch that
// empties the queue and end the subscriptions that would otherwise wait for
// the dropped events.
type outbox struct {
	size, hard int // soft bound (droppables dropped), hard bound (anything dropped)
	maxMerge   int // largest merged Data
	merge      func(prev, next Event) (Event, bool)
	canDrop    func(Event) bool

	mu        sync.Mutex
	items     []*outItem
	live      int // items not dropped
	droppable int // live droppable items
	scan      int // no live droppable item before this index
	tail      map[string]*outItem
	lost      map[string]int64
	closed    bool

	wake  chan struct{} // an item was queued
	full  chan struct{} // a whole batch is waiting
	batch int           // items that make a full batch

	merged, dropped, droppedPriority atomic.Uint64
}

func newOutbox(o Options) *outbox {
	return &outbox{
		size:     o.QueueSize,
		hard:     2 * o.QueueSize,
		maxMerge: o.MaxMergeBytes,
		merge:    o.Merge,
		canDrop:  o.Droppable,
		tail:     make(map[string]*outItem),
		lost:     make(map[string]int64),
		wake:     make(chan struct{}, 1),
		full:     make(chan struct{}, 1),
		batch:    o.MaxBatchEvents,
	}
}

// push queues a locally published event with its origin offset, merging it
// into the topic's previous queued event when that is possible.
func (q *outbox) push(ev Event, offset int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	if prev := q.tail[ev.Topic]; prev != nil && !prev.dropped && prev.op == opEvent && prev.last+1 == offset &&
		len(prev.ev.Data)+len(ev.Data) <= q.maxMerge {
		if merged, ok := q.merge(prev.ev, ev); ok {
			prev.ev, prev.last = merged, offset
			q.merged.Add(1)
			return
		}
	}
	q.addLocked(&outItem{op: opEvent, ev: ev, first: offset, last: offset, droppable: q.canDrop(ev)})
}

// pushRetire queues the retirement of topic; it is never dropped before
// the hard bound.
func (q *outbox) pushRetire(topic string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.addLocked(&outItem{op: opRetire, ev: Event{Topic: topic}})
}

// addLocked appends it unless the queue is full (see outbox).
func (q *outbox) addLocked(it *outItem) {
	if q.live >= q.size {
		switch {
		case it.droppable:
			q.dropped.Add(1)
			q.loseLocked(it.ev.Topic, it.last)
			return
		case q.evictLocked():
		case q.live < q.hard:
		default:
			q.droppedPriority.Add(1)
			q.loseLocked(it.ev.Topic, it.last)
			return
		}
	}
	q.items = append(q.items, it)
	q.live++
	if it.droppable {
		q.droppable++
	}
	q.tail[it.ev.Topic] = it
	signal(q.wake)
	if q.live >= q.batch {
		signal(q.full)
	}
}

// evictLocked drops the oldest queued droppable item, if any.
func (q *outbox) evictLocked() bool {
	if q.droppable == 0 {
		return false
	}
	for i := q.scan; i < len(q.items); i++ {
		it := q.items[i]
		if it.dropped || !it.droppable {
			continue
		}
		it.dropped = true
		q.live--
		q.droppable--
		q.scan = i + 1
		q.dropped.Add(uint64(it.last - it.first + 1))
		q.loseLocked(it.ev.Topic, it.last)
		return true
	}
	return false
}

// loseLocked remembers that the topic's origin offsets up to last were
// dropped.
func (q *outbox) loseLocked(topic string, last int64) {
	if last > q.lost[topic] {
		q.lost[topic] = last
	}
}

// take removes up to maxItems items (and about maxBytes of data) from the
// head of the queue. When that empties the queue it also returns, and
// forgets, the topics whose events were dropped, so that the lost markers
// follow every event queued before the drops.
func (q *outbox) take(maxItems, maxBytes int) (batch []*outItem, lost map[string]int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n, size := 0, 0
	for n < len(q.items) && len(batch) < maxItems && size < maxBytes {
		it := q.items[n]
		n++
		if it.dropped {
			continue
		}
		batch = append(batch, it)
		size += len(it.ev.Data) + len(it.ev.Topic) + len(it.ev.Kind)
		q.live--
		if it.droppable {
			q.droppable--
		}
		if q.tail[it.ev.Topic] == it {
			delete(q.tail, it.ev.Topic)
		}
	}
	clear(q.items[:n])
	if n == len(q.items) {
		q.items = q.items[:0]
	} else {
		q.items = append(make([]*outItem, 0, len(q.items)-n), q.items[n:]...)
	}
	q.scan = max(q.scan-n, 0)
	if len(q.items) == 0 && len(q.lost) > 0 {
		lost, q.lost = q.lost, make(map[string]int64)
	}
	return batch, lost
}

// discard counts taken items that could not be sent as dropped and
// remembers their topics as lost, as if the queue had overflowed.
func (q *outbox) discard(items []*outItem) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, it := range items {
		switch {
		case it.op == opRetire:
			q.droppedPriority.Add(1)
			continue
		case it.droppable:
			q.dropped.Add(uint64(it.last - it.first + 1))
		default:
			q.droppedPriority.Add(1)
		}
		q.loseLocked(it.ev.Topic, it.last)
	}
	signal(q.wake) // the losses go out with the next batch
}

// len returns how many items are queued.
func (q *outbox) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.live
}

// close makes later pushes no-ops.
func (q *outbox) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
}

// signal sends on a one-slot channel without blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
