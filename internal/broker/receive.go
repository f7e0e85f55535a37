package broker

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"sync"
)

// receiver turns the frames other instances send into events of the local
// Memory (see frame.go for the format, relay.go for the ordering rules).
// frame is called by one goroutine per bus and never blocks: relaying into
// Memory only offers events to subscribers.
type receiver struct {
	self  string
	m     *Memory
	log   *slog.Logger
	stats *counters

	mu      sync.Mutex
	origins map[string]*rxOrigin
}

// rxOrigin is what the receiver knows of one sending process: the last
// frame seq taken, and the parts of a batch being joined.
type rxOrigin struct {
	seq   uint64
	parts [][]byte
	want  int
}

func newReceiver(self string, m *Memory, log *slog.Logger, stats *counters) *receiver {
	return &receiver{self: self, m: m, log: log, stats: stats, origins: make(map[string]*rxOrigin)}
}

// frame takes one frame from the bus.
func (r *receiver) frame(b []byte) {
	h, body, ok := parseFrame(b)
	if !ok {
		r.stats.badFrames.Add(1)
		return
	}
	if h.origin == r.self {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.origins[h.origin]
	switch {
	case o == nil:
		// The first frame of this process: nothing to compare with. A
		// batch whose first parts were missed is skipped below.
		o = &rxOrigin{}
		r.origins[h.origin] = o
	case h.seq <= o.seq:
		return // a retried send that had succeeded
	case h.seq != o.seq+1:
		r.log.Warn("broker: frames of another instance were lost; streams resync from the database",
			"origin", h.origin, "expected", o.seq+1, "got", h.seq)
		r.resetLocked()
		o = &rxOrigin{}
		r.origins[h.origin] = o
	}
	o.seq = h.seq
	switch {
	case h.part == 1:
		o.parts, o.want = append(o.parts[:0], body), h.parts
	case o.want == h.parts && len(o.parts)+1 == h.part:
		o.parts = append(o.parts, body)
	default:
		o.parts, o.want = nil, 0
		return
	}
	if len(o.parts) < o.want {
		return
	}
	batch := o.parts[0]
	if len(o.parts) > 1 {
		batch = bytes.Join(o.parts, nil)
	}
	o.parts, o.want = nil, 0
	var evs []wireEvent
	if err := json.Unmarshal(batch, &evs); err != nil {
		r.stats.badFrames.Add(1)
		r.log.Warn("broker: undecodable batch", "origin", h.origin, "err", err)
		return
	}
	for i := range evs {
		r.apply(h.origin, &evs[i])
	}
}

// apply relays one received item into the local Memory.
func (r *receiver) apply(origin string, w *wireEvent) {
	if w.Topic == "" {
		return
	}
	r.stats.received.Add(1)
	switch w.Op {
	case wireOpEvent:
		last := w.Last
		if last == 0 {
			last = w.First
		}
		ev := Event{Topic: w.Topic, Kind: w.Kind, Seq: w.Seq, Data: w.data()}
		if gap, err := r.m.relay(ev, origin, w.First, last); err == nil && gap {
			r.stats.gaps.Add(1)
		}
	case wireOpRetire:
		r.m.Retire(w.Topic)
	case wireOpLost:
		if r.m.relayLost(w.Topic, origin, w.Last) {
			r.stats.gaps.Add(1)
		}
	}
}

// reset is called when the bus may have lost frames of any instance (it
// reconnected, or a subscriber buffer overflowed): every topic other
// instances feed is reset (Memory.resetRemote) and every origin's frame
// seq forgotten.
func (r *receiver) reset(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log.Info("broker: bus may have lost events; remote-fed streams resync from the database", "reason", reason)
	r.resetLocked()
}

func (r *receiver) resetLocked() {
	r.stats.resets.Add(1)
	r.origins = make(map[string]*rxOrigin)
	r.m.resetRemote()
}
