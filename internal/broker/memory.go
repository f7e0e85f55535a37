package broker

import (
	"bytes"
	"cmp"
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/periodic"
)

// Defaults of MemoryOptions.
const (
	DefaultSubscriberBuffer = 256
	DefaultBacklogSize      = 4096
	DefaultRetireAfter      = 2 * time.Minute
	DefaultIdleAfter        = 30 * time.Minute
	DefaultMaxIdleTopics    = 1024
)

// MemoryOptions configures NewMemory. Zero fields take the defaults.
type MemoryOptions struct {
	// SubscriberBuffer is each subscription's channel capacity. A
	// subscriber that falls this far behind is dropped with ErrLagged.
	SubscriberBuffer int
	// BacklogSize is how many recent events each topic keeps for
	// subscribers that join or resume late.
	BacklogSize int
	// RetireAfter is the grace period a retired topic keeps its backlog.
	RetireAfter time.Duration
	// IdleAfter forgets a topic that was never retired once it has had no
	// subscriber and no publish for this long, so that topics whose
	// publisher never calls Retire do not accumulate. Negative disables it.
	IdleAfter time.Duration
	// MaxIdleTopics bounds the topics kept without a subscriber (retired
	// ones in their grace period, and idle ones): beyond it the least
	// recently active are forgotten early, as if they had expired
	// (trim.go). Negative: no bound but the times above.
	MaxIdleTopics int
	// JanitorInterval is how often a background janitor forgets expired
	// topics (default RetireAfter/4, at least one second). Negative
	// disables the janitor; expired topics are then still forgotten lazily
	// when they are next published to or subscribed to, or by Sweep.
	JanitorInterval time.Duration
	// Now is the clock (default time.Now); tests inject their own.
	Now func() time.Time
}

func (o MemoryOptions) withDefaults() MemoryOptions {
	o.SubscriberBuffer = defaults.Positive(o.SubscriberBuffer, DefaultSubscriberBuffer)
	o.BacklogSize = defaults.Positive(o.BacklogSize, DefaultBacklogSize)
	o.RetireAfter = defaults.Positive(o.RetireAfter, DefaultRetireAfter)
	o.IdleAfter = cmp.Or(o.IdleAfter, DefaultIdleAfter)
	o.MaxIdleTopics = cmp.Or(o.MaxIdleTopics, DefaultMaxIdleTopics)
	o.JanitorInterval = cmp.Or(o.JanitorInterval, max(o.RetireAfter/4, time.Second))
	o.Now = defaults.Clock(o.Now)
	return o
}

// Memory is the in-process Broker.
//
// Publishing takes the topic's lock only: it numbers the event, appends it
// to the topic's backlog ring and offers it to each subscriber with a
// non-blocking send, so its cost is O(subscribers) and a slow subscriber
// never blocks it (the subscriber is dropped with ErrLagged instead).
// Subscribing snapshots the backlog and registers the subscriber under the
// same lock, so backlog and live events neither overlap nor leave a gap.
//
// Expired topics (retired past their grace period, or idle) are forgotten
// by a janitor goroutine that stops on Close, and lazily whenever such a
// topic is next published to or subscribed to. A topic that never
// published is dropped as soon as its last subscriber leaves. A forgotten
// topic that is published to again starts over at Offset 1.
type Memory struct {
	opts MemoryOptions

	mu     sync.RWMutex
	topics map[string]*topic
	closed bool

	stopJanitor chan struct{}
	janitorDone chan struct{}
	// room is how many more topics may be without a subscriber before
	// lookup trims them (trim.go).
	room atomic.Int64

	// remote is set when a Distributed broker feeds the Memory with events
	// of other instances (relay.go): a topic this instance has not seen
	// from its first event then reports an incomplete backlog.
	remote bool
	// onPublish, when set, is called with each locally published event and
	// its origin offset, under the topic's lock, so that calls for one
	// topic come in publish order. It must not block.
	onPublish func(ev Event, originOffset int64)
}

var _ Broker = (*Memory)(nil)

// NewMemory returns an in-process broker. Call Close to stop its janitor.
func NewMemory(opts MemoryOptions) *Memory {
	return newMemory(opts, false, nil)
}

// newMemory returns a Memory that, when remote is set, may be fed by other
// instances, and that hands every local publish to onPublish (if not nil).
func newMemory(opts MemoryOptions, remote bool, onPublish func(Event, int64)) *Memory {
	m := &Memory{
		opts:      opts.withDefaults(),
		topics:    make(map[string]*topic),
		remote:    remote,
		onPublish: onPublish,
	}
	m.room.Store(int64(m.opts.MaxIdleTopics))
	if m.opts.JanitorInterval > 0 {
		m.stopJanitor = make(chan struct{})
		m.janitorDone = make(chan struct{})
		go m.janitor(m.opts.JanitorInterval)
	}
	return m
}

// Publish numbers ev, keeps it in its topic's backlog and delivers it to
// the topic's subscribers without blocking. Data is copied. Publishing to a
// retired topic that has not expired yet revives it.
func (m *Memory) Publish(ctx context.Context, ev Event) (Event, error) {
	if ev.Topic == "" {
		return Event{}, ErrNoTopic
	}
	if err := ctx.Err(); err != nil {
		return Event{}, err
	}
	if ev.Data != nil {
		ev.Data = bytes.Clone(ev.Data)
	}
	t, now, err := m.lockLive(ev.Topic)
	if err != nil {
		return Event{}, err
	}
	t.retired = false
	t.lastActive = now
	if !t.synced && t.next == 1 {
		// An empty topic that this instance starts: its backlog
		// holds it from the first event.
		t.synced = true
	}
	t.local = true
	ev = t.appendLocked(ev)
	t.deliverLocked(ev)
	if m.onPublish != nil {
		t.originNext++
		m.onPublish(ev, t.originNext)
	}
	t.mu.Unlock()
	return ev, nil
}

// Subscribe subscribes to topic. The subscription ends when ctx is done,
// when it is closed, when the broker closes, when the topic expires, or
// when it lags.
func (m *Memory) Subscribe(ctx context.Context, name string) (*Subscription, error) {
	if name == "" {
		return nil, ErrNoTopic
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := newSubscription(name, m.opts.SubscriberBuffer)
	t, now, err := m.lockLive(name)
	if err != nil {
		return nil, err
	}
	s.backlog, s.last = t.snapshotLocked()
	s.complete = t.synced && (len(s.backlog) == 0 || s.backlog[0].Offset == 1)
	s.detach = func(s *Subscription, err error) { m.detach(t, s, err) }
	t.subs[s] = struct{}{}
	t.lastActive = now
	t.mu.Unlock()
	s.watch(ctx)
	return s, nil
}

// Retire marks topic finished: it keeps its backlog and subscribers for
// RetireAfter and is then forgotten, ending remaining subscriptions with
// ErrExpired. Retiring an unknown or already retired topic does nothing.
func (m *Memory) Retire(name string) {
	m.mu.RLock()
	t := m.topics[name]
	m.mu.RUnlock()
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dead || t.retired {
		return
	}
	t.retired = true
	t.expires = m.opts.Now().Add(m.opts.RetireAfter)
}

// Close ends every subscription with ErrClosed and stops the janitor.
// Publish and Subscribe fail with ErrClosed afterwards. Close is idempotent.
func (m *Memory) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	topics := m.topics
	m.topics = nil
	m.mu.Unlock()

	if m.stopJanitor != nil {
		close(m.stopJanitor)
		<-m.janitorDone
	}
	for _, t := range topics {
		t.mu.Lock()
		t.dead = true
		t.endAllLocked(ErrClosed)
		t.mu.Unlock()
	}
	return nil
}

// Sweep forgets every expired topic now, ending their subscriptions with
// ErrExpired, and returns how many it forgot. The janitor calls it
// periodically.
func (m *Memory) Sweep() int {
	now := m.opts.Now()
	var expired []*topic
	m.mu.RLock()
	for _, t := range m.topics {
		t.mu.Lock()
		if t.expiredLocked(now, m.opts.IdleAfter) {
			expired = append(expired, t)
		}
		t.mu.Unlock()
	}
	m.mu.RUnlock()
	n := 0
	for _, t := range expired {
		if m.forget(t, now, ErrExpired) {
			n++
		}
	}
	return n
}

// Stats describes the broker's current load.
type Stats struct {
	// Topics is the number of topics held, Retired how many of them are
	// retired, Subscribers the number of live subscriptions.
	Topics, Retired, Subscribers int
}

// Stats returns the broker's current load.
func (m *Memory) Stats() Stats {
	var st Stats
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, t := range m.topics {
		t.mu.Lock()
		st.Topics++
		if t.retired {
			st.Retired++
		}
		st.Subscribers += len(t.subs)
		t.mu.Unlock()
	}
	return st
}

// lockLive returns the live topic called name (lookup), locked, and the
// time it was found live at; a dead or expired topic found instead is
// forgotten (forget) and name looked up again.
func (m *Memory) lockLive(name string) (*topic, time.Time, error) {
	for {
		now := m.opts.Now()
		t, err := m.lookup(name, now)
		if err != nil {
			return nil, now, err
		}
		t.mu.Lock()
		if !t.dead && !t.expiredLocked(now, m.opts.IdleAfter) {
			return t, now, nil
		}
		t.mu.Unlock()
		m.forget(t, now, ErrExpired)
	}
}

// lookup returns the live topic called name, creating it if needed.
func (m *Memory) lookup(name string, now time.Time) (*topic, error) {
	m.mu.RLock()
	t, closed := m.topics[name], m.closed
	m.mu.RUnlock()
	switch {
	case closed:
		return nil, ErrClosed
	case t != nil:
		return t, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if t = m.topics[name]; t == nil {
		t = newTopic(name, m.opts.BacklogSize, now, !m.remote)
		m.topics[name] = t
		m.trimLocked(t)
	}
	return t, nil
}

// forget removes t if it is still the broker's topic of its name and has
// expired (or is dead already), ending its subscriptions with err. It
// reports whether it removed t.
func (m *Memory) forget(t *topic, now time.Time, err error) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dead || m.topics[t.name] != t || !t.expiredLocked(now, m.opts.IdleAfter) {
		return false
	}
	t.dead = true
	delete(m.topics, t.name)
	t.endAllLocked(err)
	return true
}

// detach removes s from t and ends it with err, then drops t if it never
// published and has no subscriber left.
func (m *Memory) detach(t *topic, s *Subscription, err error) {
	t.mu.Lock()
	if _, ok := t.subs[s]; ok {
		delete(t.subs, s)
		s.finish(err)
		if len(t.subs) == 0 {
			m.room.Add(-1)
		}
	}
	t.lastActive = m.opts.Now()
	unused := !t.dead && t.unusedLocked()
	t.mu.Unlock()
	if !unused {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.dead && m.topics[t.name] == t && t.unusedLocked() {
		t.dead = true
		delete(m.topics, t.name)
	}
}

// janitor sweeps expired topics every interval until Close.
func (m *Memory) janitor(interval time.Duration) {
	defer close(m.janitorDone)
	periodic.Every(m.stopJanitor, interval, func() bool {
		m.Sweep()
		return true
	})
}
