package broker

import (
	"slices"
	"time"
)

// Topics without a subscriber are kept for late subscribers: a retired
// attempt's backlog for its grace period (RetireAfter), a topic that is
// never retired until it has been idle for IdleAfter. Those are bounds in
// time only, so under a steady load the broker would hold every topic of
// the last RetireAfter or IdleAfter (a conversation's and a user's feed
// topics are never retired): about 15,000 topics and 200 MB after a
// 150 s soak (docs/BENCHMARKS.md, "Memory over two soaks").
//
// MaxIdleTopics bounds their number as well. When a new topic is created
// and the topics without a subscriber, the new one included, would be
// more than MaxIdleTopics, the least recently active of them are
// forgotten, as if they had expired, until a quarter of the bound is free.
// Forgetting early is what expiry already does, so every subscriber copes
// with it: a resuming attempt stream finds an incomplete backlog and reads
// the attempt's checkpoint from the database, and the feeds only ever
// follow live events. Topics with a subscriber are never trimmed; they are
// bounded by the subscriptions the server allows.
//
// A trim scans every topic. To keep that rare, Memory keeps the room the
// last trim left below the bound and takes one from it for every topic
// created and every topic whose last subscriber left (topics forgotten
// meanwhile only make more room): only when the room is used up may the
// topics without a subscriber exceed the bound, so only then does the
// next new topic trim, which costs a constant time per new topic on
// average.

// trimLocked takes the room of keep, a topic being created, and trims the
// topics without a subscriber when there is none left. The caller holds
// m.mu for writing.
func (m *Memory) trimLocked(keep *topic) {
	limit := m.opts.MaxIdleTopics
	if limit < 0 {
		return
	}
	room := m.room.Add(-1)
	if room >= 0 {
		return
	}
	type idle struct {
		t    *topic
		last time.Time
	}
	var cands []idle
	for _, t := range m.topics {
		t.mu.Lock()
		if t != keep && len(t.subs) == 0 {
			cands = append(cands, idle{t, t.lastActive})
		}
		t.mu.Unlock()
	}
	target := max(limit-max(limit/4, 1)-1, 0) // the others kept besides keep
	if n := len(cands) - target; n > 0 {
		slices.SortFunc(cands, func(a, b idle) int { return a.last.Compare(b.last) })
		for _, c := range cands[:n] {
			// Checked again under the topic's lock: a Subscribe that
			// looked the topic up before this trim may have joined it
			// since the scan. One that joins later finds it dead and
			// looks it up again, as after an expiry.
			c.t.mu.Lock()
			if !c.t.dead && len(c.t.subs) == 0 {
				c.t.dead = true
				delete(m.topics, c.t.name)
			}
			c.t.mu.Unlock()
		}
	}
	// The new room, less what subscribers that left during the scan took
	// (an Add rather than a Store keeps those; the ones the scan saw are
	// counted twice, which only trims a little sooner).
	m.room.Add(int64(limit-(min(len(cands), target)+1)) - room)
}
