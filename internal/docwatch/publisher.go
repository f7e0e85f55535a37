package docwatch

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/defaults"
)

// DefaultInterval is the shortest time between two broadcasts of one
// tenant when Options.Interval is not set.
const DefaultInterval = time.Second

// Options configure a Publisher.
type Options struct {
	// Interval is the shortest time between two broadcasts of one tenant
	// (DefaultInterval when 0 or less).
	Interval time.Duration
	// Logger reports broadcasts the broker refused (slog.Default when nil).
	Logger *slog.Logger
}

// Publisher coalesces the document changes reported on this replica into
// at most one broadcast per tenant per interval. The first change after a
// quiet interval is broadcast at once; changes within an interval of the
// last broadcast wait for its end and go out together. Changed never
// blocks: broadcasts are sent from timer goroutines. It is safe for
// concurrent use.
type Publisher struct {
	b        broker.Broker
	log      *slog.Logger
	interval time.Duration

	sent atomic.Uint64

	mu      sync.Mutex
	tenants map[string]*pending
	closed  bool
	wg      sync.WaitGroup
}

// pending is one tenant's changes not broadcast yet.
type pending struct {
	docs  map[uuid.UUID]struct{}
	many  bool
	since time.Time   // the first change of the batch, less sinceSlack
	last  time.Time   // the last broadcast
	timer *time.Timer // the coming broadcast; nil when none is due
}

// NewPublisher returns a publisher that broadcasts on b.
func NewPublisher(b broker.Broker, opts Options) *Publisher {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	opts.Logger = defaults.Logger(opts.Logger)
	return &Publisher{b: b, log: opts.Logger, interval: opts.Interval, tenants: map[string]*pending{}}
}

// Interval is the shortest time between two broadcasts of one tenant.
func (p *Publisher) Interval() time.Duration { return p.interval }

// Broadcasts counts the broadcasts sent so far (all tenants), for tests
// and metrics.
func (p *Publisher) Broadcasts() uint64 { return p.sent.Load() }

// Idle reports whether no change waits for a broadcast.
func (p *Publisher) Idle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range p.tenants {
		if t.timer != nil {
			return false
		}
	}
	return true
}

// Changed records that docs of tenant changed (call it once the change is
// committed). The broadcast that carries them goes out at once when the
// tenant's last one is at least an interval old, else at the end of that
// interval.
func (p *Publisher) Changed(tenant string, docs []uuid.UUID) {
	if len(docs) == 0 {
		return
	}
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	t := p.tenants[tenant]
	if t == nil {
		t = &pending{}
		p.tenants[tenant] = t
	}
	if t.docs == nil && !t.many {
		t.docs = map[uuid.UUID]struct{}{}
		t.since = now.Add(-sinceSlack)
	}
	for _, id := range docs {
		if t.many {
			break
		}
		t.docs[id] = struct{}{}
		if len(t.docs) > MaxIDs {
			t.many, t.docs = true, nil
		}
	}
	if t.timer != nil {
		return
	}
	delay := max(0, t.last.Add(p.interval).Sub(now))
	p.wg.Add(1)
	t.timer = time.AfterFunc(delay, func() { p.flush(tenant) })
}

// flush broadcasts tenant's pending changes.
func (p *Publisher) flush(tenant string) {
	defer p.wg.Done()
	p.mu.Lock()
	t := p.tenants[tenant]
	if t == nil || p.closed {
		p.mu.Unlock()
		return
	}
	b := Batch{Tenant: tenant, Many: t.many, Since: t.since}
	for id := range t.docs {
		b.Docs = append(b.Docs, id)
	}
	t.docs, t.many, t.timer, t.last = nil, false, nil, time.Now()
	p.mu.Unlock()
	p.sent.Add(1)
	data, err := json.Marshal(b)
	if err != nil {
		return
	}
	if _, err := p.b.Publish(context.Background(), broker.Event{Topic: Topic(tenant), Kind: Kind, Data: data}); err != nil && !errors.Is(err, broker.ErrClosed) {
		p.log.Warn("document changes not broadcast; open streams hear of them with the next change", "tenant", tenant, "err", err)
	}
}

// Close drops the pending changes and waits for broadcasts being sent.
// Changes reported later are ignored.
func (p *Publisher) Close() {
	p.mu.Lock()
	p.closed = true
	for _, t := range p.tenants {
		if t.timer != nil && t.timer.Stop() {
			p.wg.Done()
		}
	}
	clear(p.tenants)
	p.mu.Unlock()
	p.wg.Wait()
}
