package broker

import (
	"context"
	"sync"
)

// Subscription is one subscriber's view of a topic: the backlog the topic
// held when it subscribed, then every later event on C.
type Subscription struct {
	topic    string
	backlog  []Event
	last     int64 // offset of the newest event when subscribing (0: none)
	complete bool
	ch       chan Event
	done     chan struct{}
	// detach removes the subscription from its topic and ends it with err,
	// unless it has already ended. It is set by the broker implementation.
	detach func(s *Subscription, err error)

	mu    sync.Mutex
	ended bool
	err   error
	stop  func() bool // unregisters the context.AfterFunc watch
}

func newSubscription(topic string, buffer int) *Subscription {
	return &Subscription{
		topic: topic,
		ch:    make(chan Event, buffer),
		done:  make(chan struct{}),
	}
}

// Topic returns the subscribed topic.
func (s *Subscription) Topic() string { return s.topic }

// Backlog returns the events the topic still held when the subscription was
// made, oldest first, and whether that backlog starts at Offset 1 (nothing
// was evicted), so that a resuming client can be served from it alone. In
// a Memory broker, an empty backlog of a topic that has published nothing
// is complete. A Distributed broker reports complete only for a topic this
// instance holds from its first event: not for a topic it has not heard of
// yet (it may have started on another instance), nor for one whose events
// it missed (see internal/broker/README.md).
func (s *Subscription) Backlog() (events []Event, complete bool) {
	return s.backlog, s.complete
}

// Since returns the backlog events after offset, for a client resuming from
// the last offset it saw, and whether they continue that offset without a
// gap. It reports false when events after offset were already evicted, or
// when offset lies beyond anything the topic has published (the topic was
// forgotten and started again at 1); the client must then resync from the
// database.
func (s *Subscription) Since(offset int64) ([]Event, bool) {
	offset = max(offset, 0)
	if offset > s.last {
		return nil, false
	}
	first := s.last - int64(len(s.backlog)) + 1 // oldest offset held
	if offset+1 < first {
		return nil, false
	}
	return s.backlog[offset+1-first:], true
}

// C delivers the events published after the backlog, in order, with no
// duplicate of the backlog and no gap. It is closed after Done.
func (s *Subscription) C() <-chan Event { return s.ch }

// Done is closed when the subscription ends: its context is done, Close is
// called, the broker is closed, the topic expires, or the subscriber
// lagged.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err reports why the subscription ended: nil while it is live, the
// context's error, ErrClosed, ErrExpired, or ErrLagged (its buffer
// overflowed: resubscribe and resync).
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the subscription with ErrClosed and releases its resources. It
// is safe to call more than once and after the subscription has ended.
func (s *Subscription) Close() { s.detach(s, ErrClosed) }

// watch ends the subscription when ctx is done. It registers a
// context.AfterFunc, so no goroutine waits while ctx is live; finish
// unregisters it.
func (s *Subscription) watch(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.stop = context.AfterFunc(ctx, func() { s.detach(s, ctx.Err()) })
}

// send delivers ev without blocking and reports whether it fit the buffer.
// The caller holds the lock of the subscription's topic, which serialises
// send with finish.
func (s *Subscription) send(ev Event) bool {
	select {
	case s.ch <- ev:
		return true
	default:
		return false
	}
}

// finish ends the subscription with err: it records err, closes Done, then
// C, and unregisters the context watch. The caller holds the lock of the
// subscription's topic and has removed the subscription from it.
func (s *Subscription) finish(err error) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended, s.err = true, err
	stop := s.stop
	s.mu.Unlock()
	close(s.done)
	close(s.ch)
	if stop != nil {
		stop()
	}
}
