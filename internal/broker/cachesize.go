package broker

import "github.com/ragchat/ragchat/internal/cachesize"

// CacheSizes implements cachesize.Reporter: the topics kept without a
// subscriber (bounded by MaxIdleTopics; 0 when unbounded) and the events
// all topics' backlogs hold (each topic at most BacklogSize).
func (m *Memory) CacheSizes() []cachesize.Size {
	idle, events := 0, 0
	m.mu.RLock()
	for _, t := range m.topics {
		t.mu.Lock()
		if len(t.subs) == 0 {
			idle++
		}
		events += len(t.ring)
		t.mu.Unlock()
	}
	m.mu.RUnlock()
	return []cachesize.Size{
		{Name: "broker_idle_topics", Entries: idle, Bound: max(m.opts.MaxIdleTopics, 0)},
		{Name: "broker_backlog_events", Entries: events},
	}
}

// CacheSizes implements cachesize.Reporter with the local Memory's sizes.
func (d *Distributed) CacheSizes() []cachesize.Size { return d.mem.CacheSizes() }
