package broker

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// receiver turns the frames other instances send into events of the local
// Memory (see seal.go and frame.go for the format, relay.go for the
// ordering rules). frame is called by one goroutine per bus and never
// blocks: relaying into Memory only offers events to subscribers.
type receiver struct {
	self   string
	m      *Memory
	log    *slog.Logger
	stats  *counters
	seal   *sealer
	maxAge time.Duration
	now    func() time.Time
	// rejectLog limits the log of rejected frames to one line a minute:
	// whoever can write to the bus can send any number of them.
	rejectLog rate.Sometimes

	mu      sync.Mutex
	origins map[string]*rxOrigin
	swept   time.Time // when origins was last pruned
}

// rxOrigin is what the receiver knows of one sending process: the highest
// frame seq taken, and the parts of a batch being joined.
type rxOrigin struct {
	// seq is the highest frame seq taken; frames at or below it are
	// repeats (a retried send that had succeeded) or replays, and are
	// ignored. A reset does not forget it.
	seq uint64
	// fresh: the next frame is taken as it comes, without checking that it
	// continues seq (the first frame of the origin since a reset).
	fresh bool
	parts [][]byte
	want  int
	seen  time.Time // when a frame of the origin was last taken
}

func newReceiver(self string, m *Memory, log *slog.Logger, stats *counters, seal *sealer, maxAge time.Duration) *receiver {
	return &receiver{
		self: self, m: m, log: log, stats: stats, seal: seal, maxAge: maxAge, now: time.Now,
		rejectLog: rate.Sometimes{Interval: time.Minute},
		origins:   make(map[string]*rxOrigin),
	}
}

// originMemory is how long the receiver remembers an origin it no longer
// hears from: longer than any frame of it can be accepted (a frame is
// accepted up to maxAge after it was sent by the sender's clock, which may
// run up to maxAge ahead), so that no frame it took can be replayed
// afterwards.
func (r *receiver) originMemory() time.Duration {
	return max(3*r.maxAge, 10*time.Minute)
}

// frame takes one sealed frame from the bus. Frames that fail
// authentication, or were sent longer than maxAge ago (or as far ahead),
// are dropped, counted and reported in the log at most once a minute.
func (r *receiver) frame(b []byte) {
	inner, sent, err := r.seal.open(b)
	now := r.now()
	if err == nil && (now.Sub(sent) > r.maxAge || sent.Sub(now) > r.maxAge) {
		err = errStale
	}
	if err != nil {
		n := r.stats.rejected.Add(1)
		r.rejectLog.Do(func() {
			r.log.Warn("broker: dropped a frame that is not this deployment's (every replica must share one "+
				"RAGCHAT_BROKER_SECRET and keep its clock in sync; anything else written to the bus is ignored)",
				"reason", err.Error(), "rejected_total", n)
		})
		return
	}
	r.plain(inner, now)
}

// errStale: a frame sent longer ago than the replay window, or as far in
// the future (a replay, or clocks far apart).
var errStale = errors.New("sent outside the replay window (a replay, or clocks far apart)")

// plain takes one authenticated inner frame, received at now.
func (r *receiver) plain(b []byte, now time.Time) {
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
	r.pruneLocked(now)
	o := r.origins[h.origin]
	switch {
	case o == nil:
		// The first frame of this process: nothing to compare with. A
		// batch whose first parts were missed is skipped below.
		o = &rxOrigin{}
		r.origins[h.origin] = o
	case h.seq <= o.seq:
		return // a retried send that had succeeded, or a replay
	case o.fresh:
		// The first frame since a reset: taken as it comes.
	case h.seq != o.seq+1:
		r.log.Warn("broker: frames of another instance were lost; streams resync from the database",
			"origin", h.origin, "expected", o.seq+1, "got", h.seq)
		r.resetLocked()
	}
	o.seq, o.fresh, o.seen = h.seq, false, now
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
// instances feed is reset (Memory.resetRemote), and every origin's next
// frame is taken without checking that it continues the last one (its seq
// must still be above it: a reset reopens no door to replays).
func (r *receiver) reset(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log.Info("broker: bus may have lost events; remote-fed streams resync from the database", "reason", reason)
	r.resetLocked()
}

func (r *receiver) resetLocked() {
	r.stats.resets.Add(1)
	for _, o := range r.origins {
		o.fresh, o.parts, o.want = true, nil, 0
	}
	r.m.resetRemote()
}

// pruneLocked forgets, at most once per maxAge, the origins not heard from
// for originMemory (processes that stopped).
func (r *receiver) pruneLocked(now time.Time) {
	if now.Sub(r.swept) < r.maxAge {
		return
	}
	r.swept = now
	for name, o := range r.origins {
		if now.Sub(o.seen) > r.originMemory() {
			delete(r.origins, name)
		}
	}
}
