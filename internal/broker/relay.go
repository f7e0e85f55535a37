package broker

// This file holds the Memory methods a Distributed broker uses to feed the
// events of other instances into the local Memory, and the rules that keep
// Subscription.Backlog's complete flag and C's "no gap" promise true when
// events come from several origins over a lossy bus.
//
// Every instance (origin) numbers its own publishes per topic 1, 2, 3…
// (topic.originNext), and each relayed event carries the range of origin
// offsets it covers (several when DELTAs were merged). A topic remembers,
// per origin, the last origin offset it received (topic.origins):
//
//   - The next range of an origin continues it (first = last+1), or starts
//     over at 1 (the origin forgot the topic and began it anew): in order.
//   - An origin seen for the first time at offset 1: in order. If the topic
//     is still empty, it is now held from its first event (synced).
//   - An origin seen for the first time past offset 1: this instance missed
//     the start of its stream. A synced topic stops being synced and its
//     subscriptions end with ErrLagged, since they were promised every
//     event; a topic that is not synced keeps its subscriptions, which were
//     told that the backlog was incomplete and resynced when they joined.
//   - Anything else (a gap, or going backwards): the topic stops being
//     synced and its subscriptions end with ErrLagged.
//
// A stand-alone Memory never calls these methods; its topics are always
// synced.

// relay appends ev, received from another instance, to its topic and
// delivers it, as Publish does. origin names the instance that published
// it and [first, last] the origin offsets it covers. It reports whether
// the event revealed a discontinuity (its topic's subscriptions were ended
// with ErrLagged and the topic marked incomplete).
func (m *Memory) relay(ev Event, origin string, first, last int64) (gap bool, err error) {
	if ev.Topic == "" {
		return false, ErrNoTopic
	}
	t, now, err := m.lockLive(ev.Topic)
	if err != nil {
		return false, err
	}
	cur, known := t.origins[origin]
	switch {
	case known && (first == cur+1 || first == 1), !known && first == 1:
		if !t.synced && t.next == 1 && first == 1 {
			t.synced = true
		}
	case !known && !t.synced:
		// Missed the start, but every subscriber already knows the
		// backlog is incomplete.
	default:
		gap = true
		t.synced = false
		t.endAllLocked(ErrLagged)
	}
	if t.origins == nil {
		t.origins = make(map[string]int64)
	}
	t.origins[origin] = last
	t.fed = true
	t.retired = false
	t.lastActive = now
	ev = t.appendLocked(ev)
	t.deliverLocked(ev)
	t.mu.Unlock()
	return gap, nil
}

// relayLost records that origin dropped its events of topic up to origin
// offset last before sending them (its outbound queue overflowed). Unless
// the topic already received past last, its subscriptions end with
// ErrLagged and it is marked incomplete, so that subscribers resync from the
// database instead of waiting for events that will never come. It reports
// whether it ended anything. An unknown topic is left alone: it has no
// subscriber, and whoever creates it later gets an incomplete backlog.
func (m *Memory) relayLost(name, origin string, last int64) bool {
	m.mu.RLock()
	t := m.topics[name]
	m.mu.RUnlock()
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dead {
		return false
	}
	if cur, known := t.origins[origin]; known && cur >= last {
		return false
	}
	if t.origins == nil {
		t.origins = make(map[string]int64)
	}
	t.origins[origin] = last
	t.fed = true
	t.synced = false
	t.endAllLocked(ErrLagged)
	return true
}

// resetRemote is called when this instance may have missed events of other
// instances (the bus reconnected, or lost messages). Every topic that other
// instances feed or may feed (all but those only ever published to here)
// ends its subscriptions with ErrLagged, is marked incomplete and forgets
// its origin offsets, so that subscribers resync from the database and the
// next events of each origin are taken as they come. It returns how many
// subscriptions it ended.
func (m *Memory) resetRemote() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for name, t := range m.topics {
		t.mu.Lock()
		if t.fed || !t.local {
			n += len(t.subs)
			t.endAllLocked(ErrLagged)
			t.synced = false
			t.origins = nil
			if t.unusedLocked() {
				t.dead = true
				delete(m.topics, name)
			}
		}
		t.mu.Unlock()
	}
	return n
}
