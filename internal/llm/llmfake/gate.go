package llmfake

import (
	"context"
	"sync"
)

// gate holds streams at a chunk: while it stands at k, a stream waits
// before sending its content chunk k (counted from 0) until the gate is
// moved past k or opened. Tests use it to keep an answer running for as
// long as they need (a stream cut mid-answer, Stop pressed while it
// streams), instead of hoping that it still runs.
type gate struct {
	mu    sync.Mutex
	at    int           // the chunk streams wait before; -1: open
	moved chan struct{} // closed when the gate moves or opens
	held  int           // streams waiting at the gate
	// waiters are woken whenever held changes.
	waiters chan struct{}
}

func newGate() *gate {
	return &gate{at: -1, moved: make(chan struct{}), waiters: make(chan struct{})}
}

// Hold makes streaming chat requests, the running ones included, wait
// before content chunk k (k ≥ 0; 0 holds them before any text) until
// Release, or until Hold moves the gate to another chunk: streams waiting
// before an earlier chunk then go on to the new one. Requests that have
// sent chunk k already are not held. A client that gives up while held
// is reported as usual (Disconnects).
func (s *Server) Hold(k int) {
	s.gate.set(max(k, 0))
}

// Release opens the gate: held streams go on, and later ones are not held.
func (s *Server) Release() { s.gate.set(-1) }

// Held returns how many streams wait at the gate now.
func (s *Server) Held() int {
	g := s.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held
}

// WaitHeld waits until at least n streams wait at the gate, or ctx ends.
func (s *Server) WaitHeld(ctx context.Context, n int) error {
	g := s.gate
	for {
		g.mu.Lock()
		held, changed := g.held, g.waiters
		g.mu.Unlock()
		if held >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.quit:
			return context.Canceled
		}
	}
}

// set moves the gate to k (-1 opens it), letting every held stream look
// again.
func (g *gate) set(k int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.at = k
	close(g.moved)
	g.moved = make(chan struct{})
}

// pass waits while the gate holds chunk i; it reports false when the
// request ended (ctx) or the server closed (quit) meanwhile.
func (g *gate) pass(ctx context.Context, quit <-chan struct{}, i int) bool {
	counted := false
	defer func() {
		if counted {
			g.mu.Lock()
			g.held--
			g.notifyLocked()
			g.mu.Unlock()
		}
	}()
	for {
		g.mu.Lock()
		if g.at < 0 || i < g.at {
			g.mu.Unlock()
			return true
		}
		moved := g.moved
		if !counted {
			counted = true
			g.held++
			g.notifyLocked()
		}
		g.mu.Unlock()
		select {
		case <-moved:
		case <-ctx.Done():
			return false
		case <-quit:
			return false
		}
	}
}

// notifyLocked wakes WaitHeld callers; g.mu is held.
func (g *gate) notifyLocked() {
	close(g.waiters)
	g.waiters = make(chan struct{})
}
