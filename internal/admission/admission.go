// Package admission bounds the answers an instance runs at once
// (internal/admission/README.md). A Gate has a number of running
// slots and a short first-in-first-out queue: an ask takes a free slot at
// once, waits in the queue for one when none is free, and is refused with
// UNAVAILABLE and extensions.retryAfterSeconds when the queue is full or
// its wait runs out. A waiter whose context ends leaves the queue. It
// imports nothing from the engine, GraphQL or the database.
package admission

import (
	"container/list"
	"context"
	"math"
	"sync"
	"time"

	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/domain"
)

// Config sizes a Gate. Limit 0 (or less) admits everything.
type Config struct {
	// Limit is the number of answers that run at once.
	Limit int
	// Queue is the number of asks that may wait for a slot; 0: none wait
	// (an ask that finds every slot taken is refused at once).
	Queue int
	// MaxWait bounds one ask's wait in the queue (0: 5 s); an ask still
	// queued after it is refused.
	MaxWait time.Duration
}

// DefaultMaxWait is the queue wait of a Config that sets none.
const DefaultMaxWait = 5 * time.Second

// Gate admits answers. The zero value and a nil *Gate admit everything. It
// is safe for concurrent use.
type Gate struct {
	cfg Config
	now func() time.Time

	mu      sync.Mutex
	running int
	waiters list.List // of *waiter, oldest first
	// hold is a moving average of how long a slot is held, which the
	// refusal's retry hint is computed from.
	hold time.Duration
}

// waiter is one queued ask. granted is set (under the gate's lock) when a
// released slot is handed to it, and ready is closed then.
type waiter struct {
	ready   chan struct{}
	granted bool
}

// New returns a gate sized by cfg.
func New(cfg Config) *Gate {
	cfg.MaxWait = defaults.Positive(cfg.MaxWait, DefaultMaxWait)
	if cfg.Queue < 0 {
		cfg.Queue = 0
	}
	return &Gate{cfg: cfg, now: time.Now}
}

// Slot is one admitted answer's place. Release it exactly once when the
// answer ends; later calls do nothing. A nil *Slot releases nothing.
type Slot struct {
	g     *Gate
	taken time.Time
	once  sync.Once
}

// Acquire takes a running slot: at once when one is free and nobody waits
// before it, else after waiting in the queue. It refuses with UNAVAILABLE
// (retryAfterSeconds set) when the queue is full or the wait exceeds
// MaxWait, and returns ctx's error when ctx ends first; the ask then leaves
// the queue and holds nothing.
func (g *Gate) Acquire(ctx context.Context) (*Slot, error) {
	if g == nil || g.cfg.Limit <= 0 {
		return nil, nil
	}
	g.mu.Lock()
	if g.running < g.cfg.Limit && g.waiters.Len() == 0 {
		g.running++
		g.mu.Unlock()
		return g.slot(), nil
	}
	if g.waiters.Len() >= g.cfg.Queue {
		err := g.refusal()
		g.mu.Unlock()
		return nil, err
	}
	w := &waiter{ready: make(chan struct{})}
	el := g.waiters.PushBack(w)
	g.mu.Unlock()

	timer := time.NewTimer(g.cfg.MaxWait)
	defer timer.Stop()
	var err error
	select {
	case <-w.ready:
		return g.slot(), nil
	case <-ctx.Done():
		err = context.Cause(ctx)
	case <-timer.C:
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if w.granted {
		// A slot was handed over as the wait ended: pass it on.
		g.releaseLocked(0)
	} else {
		g.waiters.Remove(el)
	}
	if err == nil {
		err = g.refusal()
	}
	return nil, err
}

// slot returns a new slot taken now.
func (g *Gate) slot() *Slot { return &Slot{g: g, taken: g.now()} }

// Release gives the slot back: to the oldest waiter if any, else to the
// free slots.
func (s *Slot) Release() {
	if s == nil {
		return
	}
	s.once.Do(func() {
		g := s.g
		g.mu.Lock()
		g.releaseLocked(g.now().Sub(s.taken))
		g.mu.Unlock()
	})
}

// releaseLocked frees one running slot that was held for held (0: not
// counted in the average), handing it to the oldest waiter if any.
func (g *Gate) releaseLocked(held time.Duration) {
	if held > 0 {
		if g.hold == 0 {
			g.hold = held
		} else {
			g.hold += (held - g.hold) / 8
		}
	}
	if front := g.waiters.Front(); front != nil {
		w := g.waiters.Remove(front).(*waiter)
		w.granted = true
		close(w.ready)
		return // the slot passes on: running is unchanged
	}
	g.running--
}

// refusal is the UNAVAILABLE error of a full gate, with a hint of when a
// slot is likely free: the average hold times the queue's length over the
// slots, at least 1 s and at most 60 s. The caller holds the lock.
func (g *Gate) refusal() error {
	wait := float64(g.hold) * float64(g.waiters.Len()+1) / float64(g.cfg.Limit)
	secs := int(math.Ceil(time.Duration(wait).Seconds()))
	secs = max(1, min(secs, 60))
	return domain.Errorf(domain.CodeUnavailable, "the server is answering as many questions as it can; retry shortly").
		With("retryAfterSeconds", secs).With("limit", LimitRunningAnswers)
}

// LimitRunningAnswers names the bound in a refusal's extensions.limit.
const LimitRunningAnswers = "maxRunningAnswers"

// Stats is a gate's state at one moment.
type Stats struct {
	Running, Queued int
}

// Stats returns how many answers run and how many asks wait.
func (g *Gate) Stats() Stats {
	if g == nil {
		return Stats{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return Stats{Running: g.running, Queued: g.waiters.Len()}
}
