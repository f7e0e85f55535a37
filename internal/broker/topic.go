package broker

import (
	"sync"
	"time"
)

// topic is one topic of the in-process broker: a bounded backlog ring and
// the live subscribers. Its fields are guarded by mu; the lock order is
// Memory.mu before topic.mu.
type topic struct {
	name string

	mu   sync.Mutex
	next int64   // offset of the next event (1 before any)
	ring []Event // backlog; grows up to cap, then wraps
	head int     // index of the oldest event once the ring has wrapped
	size int     // backlog capacity
	subs map[*Subscription]struct{}

	retired    bool
	expires    time.Time // when a retired topic may be forgotten
	lastActive time.Time // last publish, subscribe or unsubscribe
	dead       bool      // forgotten by the broker; callers must look up again

	// synced reports whether the backlog can be complete: this instance
	// holds the topic from its first event (see Subscription.Backlog). It
	// is always true in a stand-alone Memory; relay.go describes how a
	// Distributed broker's topics gain and lose it.
	synced bool
	// local: published to on this instance; fed: received events relayed
	// from other instances.
	local, fed bool
	// origins holds, per origin instance, the last origin offset relayed
	// into the topic (relay.go).
	origins map[string]int64
	// originNext counts the events published on this instance, which
	// other instances see as this origin's offsets 1, 2, 3…
	originNext int64
}

func newTopic(name string, size int, now time.Time, synced bool) *topic {
	return &topic{
		name:       name,
		next:       1,
		size:       size,
		subs:       make(map[*Subscription]struct{}),
		lastActive: now,
		synced:     synced,
	}
}

// appendLocked numbers ev and stores it in the backlog, evicting the oldest
// event when the ring is full. The stored events share the topic's name
// rather than each keeping the copy its publisher built.
func (t *topic) appendLocked(ev Event) Event {
	ev.Topic = t.name
	ev.Offset = t.next
	t.next++
	if len(t.ring) < t.size {
		t.ring = append(t.ring, ev)
		return ev
	}
	t.ring[t.head] = ev
	t.head = (t.head + 1) % t.size
	return ev
}

// snapshotLocked copies the backlog, oldest first, and returns the offset of
// the newest event (0 when none).
func (t *topic) snapshotLocked() ([]Event, int64) {
	out := make([]Event, 0, len(t.ring))
	out = append(out, t.ring[t.head:]...)
	out = append(out, t.ring[:t.head]...)
	return out, t.next - 1
}

// deliverLocked sends ev to every subscriber without blocking; a subscriber
// whose buffer is full is dropped with ErrLagged.
func (t *topic) deliverLocked(ev Event) {
	for s := range t.subs {
		if !s.send(ev) {
			delete(t.subs, s)
			s.finish(ErrLagged)
		}
	}
}

// endAllLocked ends every subscription with err.
func (t *topic) endAllLocked(err error) {
	for s := range t.subs {
		delete(t.subs, s)
		s.finish(err)
	}
}

// expiredLocked reports whether the broker may forget the topic at now: it
// was retired and its grace period is over, or it has had no subscriber and
// no activity for idleAfter (when positive).
func (t *topic) expiredLocked(now time.Time, idleAfter time.Duration) bool {
	if t.retired && !now.Before(t.expires) {
		return true
	}
	return idleAfter > 0 && len(t.subs) == 0 && now.Sub(t.lastActive) >= idleAfter
}

// unusedLocked reports whether the topic has never published and has no
// subscriber, so it can be dropped at once.
func (t *topic) unusedLocked() bool {
	return t.next == 1 && len(t.subs) == 0 && !t.retired
}
