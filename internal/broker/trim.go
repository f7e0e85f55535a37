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
// topics are never retired). MaxIdleTopics bounds their number as well:
// when a new topic takes the count of topics past trimAt, the least
// recently active topics without a subscriber are forgotten, as if they
// had expired, until a quarter of the bound is free. Forgetting early is
// what expiry already does, so every subscriber copes with it: a resuming
// attempt stream finds an incomplete backlog and reads the attempt's
// checkpoint from the database, and the feeds only ever follow live
// events. Topics with a subscriber are never trimmed; they are bounded by
// the subscriptions the server allows.
//
// A trim scans every topic, but the next one comes only after a quarter
// of the bound more topics have been created, so its cost per new topic
// is constant on average.

// trimLocked trims the topics without a subscriber, other than keep, when
// there are more than trimAt topics. The caller holds m.mu for writing.
func (m *Memory) trimLocked(keep *topic) {
	limit := m.opts.MaxIdleTopics
	if limit < 0 || len(m.topics) <= max(m.trimAt, limit) {
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
	target := limit - limit/4
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
	m.trimAt = len(m.topics) + max(limit/4, 1)
}
