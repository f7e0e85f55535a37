package attachment

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/periodic"
	"github.com/ragchat/ragchat/internal/waitgroup"
)

// DefaultWorkers is the number of files an instance processes at once
// when Options.Workers is 0: a quarter of GOMAXPROCS, at least one (one
// on two cores), so that processing never takes the cores asks need.
func DefaultWorkers() int { return max(1, runtime.GOMAXPROCS(0)/4) }

// The pool's defaults.
const (
	DefaultQueue        = 16
	DefaultDeadline     = 2 * time.Minute
	DefaultLease        = time.Minute
	DefaultRecoverEvery = 30 * time.Second
)

// job is one attachment to process: attempts is the row's attempts when
// it was queued, which the worker's claim moves on by one.
type job struct {
	id       uuid.UUID
	attempts int
}

// pool runs the processing of uploaded attachments
// (internal/attachment/README.md): Workers goroutines take jobs from a queue
// of at most
// Queue, each attempt bounded by Deadline and cancelled on Shutdown.
// Upload reserves a place in the queue before it stores anything
// (reserve), so a full queue refuses the upload instead of blocking it.
// While a job is queued or runs, its lease is renewed every Lease/3
// (heartbeat); the recovery loop takes over expired leases of every
// instance every RecoverEvery.
type pool struct {
	s        *Service
	jobs     chan job
	reserved atomic.Int64 // places reserved or queued, at most cap(jobs)
	kick     chan struct{}

	mu   sync.Mutex
	held map[uuid.UUID]heldJob // queued or running here

	start  sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// heldJob is a job this instance holds: the attempts its writes are
// fenced by and, once it runs, its deadline (past it, the lease is no
// longer renewed).
type heldJob struct {
	attempts int
	deadline time.Time
}

func newPool(s *Service) *pool {
	ctx, cancel := context.WithCancel(context.Background())
	return &pool{
		s: s, jobs: make(chan job, s.opts.Queue), kick: make(chan struct{}, 1),
		held: map[uuid.UUID]heldJob{}, ctx: ctx, cancel: cancel,
	}
}

// run starts the workers, the heartbeat and the recovery loop, once.
func (p *pool) run() {
	p.start.Do(func() {
		for range p.s.opts.Workers {
			p.wg.Go(p.work)
		}
		p.wg.Go(p.heartbeat)
		if p.s.opts.RecoverEvery > 0 {
			p.wg.Go(p.recoverLoop)
		}
	})
}

// reserve takes a place in the queue, or reports that it is full (or
// that the pool is stopping).
func (p *pool) reserve() bool {
	if p.ctx.Err() != nil {
		return false
	}
	for {
		n := p.reserved.Load()
		if n >= int64(cap(p.jobs)) {
			return false
		}
		if p.reserved.CompareAndSwap(n, n+1) {
			p.run()
			return true
		}
	}
}

// unreserve gives back a place reserve took and submit will not use.
func (p *pool) unreserve() { p.reserved.Add(-1) }

// submit queues j in a place reserve took; it never blocks.
func (p *pool) submit(j job) {
	p.mu.Lock()
	p.held[j.id] = heldJob{attempts: j.attempts}
	p.mu.Unlock()
	p.jobs <- j
}

// drop forgets a job this instance no longer holds.
func (p *pool) drop(id uuid.UUID) {
	p.mu.Lock()
	delete(p.held, id)
	p.mu.Unlock()
}

// work runs jobs until the pool stops.
func (p *pool) work() {
	for {
		select {
		case <-p.ctx.Done():
			return
		case j := <-p.jobs:
			p.reserved.Add(-1)
			p.attempt(j)
		}
	}
}

// attempt runs one processing attempt of j within the deadline. When the
// deadline passes or the pool stops first, a watchdog writes the verdict
// at once, even if the attempt is still inside a call that cannot be
// interrupted (its own later writes are fenced out): a deadline gives the
// attachment to Recover for its retry, or fails it PROCESSING_TIMEOUT
// after its last attempt; a shutdown gives the attempt back.
func (p *pool) attempt(j job) {
	if p.ctx.Err() != nil {
		p.releaseQueued(j)
		return
	}
	a, err := p.s.claim(p.ctx, j)
	switch {
	case err != nil && p.ctx.Err() != nil:
		p.releaseQueued(j) // stopped while claiming
		return
	case err != nil:
		p.s.opts.Logger.Warn("attachment: claim failed", "attachment", j.id, "err", err)
		p.drop(j.id) // its lease runs out and Recover retries it
		return
	case a == nil:
		p.drop(j.id) // taken over or finished meanwhile
		return
	}
	deadline := p.s.now().Add(p.s.opts.Deadline)
	p.mu.Lock()
	p.held[a.ID] = heldJob{attempts: a.Attempts, deadline: deadline}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(p.ctx, p.s.opts.Deadline)
	defer cancel()
	var once sync.Once
	verdict := func() {
		once.Do(func() {
			p.drop(a.ID)
			p.s.interrupted(a, p.ctx.Err() != nil)
			p.nudge()
		})
	}
	stop := context.AfterFunc(ctx, verdict)
	if !p.s.process(ctx, a) {
		verdict() // ctx ended first and the attempt wrote nothing
	}
	if !stop() {
		verdict() // the watchdog started: wait for its writes
	}
	p.drop(a.ID)
}

// releaseQueued hands a job that never started back to Recover.
func (p *pool) releaseQueued(j job) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.s.release(ctx, j); err != nil {
		p.s.opts.Logger.Warn("attachment: release failed", "attachment", j.id, "err", err)
	}
	p.drop(j.id)
}

// heartbeat renews the leases of the jobs held here, every Lease/3, until
// the pool stops; a running job past its deadline is not renewed.
func (p *pool) heartbeat() {
	periodic.Every(p.ctx.Done(), p.s.opts.Lease/3, func() bool {
		now := p.s.now()
		held := map[uuid.UUID]int{}
		p.mu.Lock()
		for id, h := range p.held {
			if h.deadline.IsZero() || now.Before(h.deadline) {
				held[id] = h.attempts
			}
		}
		p.mu.Unlock()
		if err := p.s.renew(p.ctx, held); err != nil && p.ctx.Err() == nil {
			p.s.opts.Logger.Warn("attachment: lease renewal failed", "err", err)
		}
		return true
	})
}

// nudge wakes the recovery loop early (an attempt was handed back).
func (p *pool) nudge() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// recoverLoop runs Recover at once and every RecoverEvery, until the
// pool stops.
func (p *pool) recoverLoop() {
	t := time.NewTicker(p.s.opts.RecoverEvery)
	defer t.Stop()
	for {
		if _, err := p.s.Recover(p.ctx, p.s.now()); err != nil && p.ctx.Err() == nil {
			p.s.opts.Logger.Warn("attachment: recovery failed", "err", err)
		}
		select {
		case <-p.ctx.Done():
			return
		case <-t.C:
		case <-p.kick:
		}
	}
}

// shutdown stops the pool: running attempts are cancelled and given back
// (the watchdog), queued jobs are released, both for Recover on any
// instance. It waits for the workers until ctx ends.
func (p *pool) shutdown(ctx context.Context) error {
	p.cancel()
	done := waitgroup.Done(&p.wg)
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	for {
		select {
		case j := <-p.jobs:
			p.reserved.Add(-1)
			p.releaseQueued(j)
		default:
			return nil
		}
	}
}
