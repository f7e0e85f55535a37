package gqlclient

import (
	"context"
	"io"
	"sync"
)

// Subscription is one running subscription. Its payloads queue without
// bound, so a slow test never stalls the connection's reader.
type Subscription struct {
	mu     sync.Mutex
	items  []*Response
	done   bool
	err    error
	notify chan struct{}
	stop   func()
	once   sync.Once
}

func newSubscription(stop func()) *Subscription {
	return &Subscription{notify: make(chan struct{}, 1), stop: stop}
}

func (s *Subscription) signal() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// push queues a payload.
func (s *Subscription) push(r *Response) {
	s.mu.Lock()
	if !s.done {
		s.items = append(s.items, r)
	}
	s.mu.Unlock()
	s.signal()
}

// finish ends the subscription: err nil means a normal completion.
func (s *Subscription) finish(err error) {
	s.mu.Lock()
	if !s.done {
		s.done = true
		s.err = err
	}
	s.mu.Unlock()
	s.signal()
}

// Next returns the next payload. It returns io.EOF once the server
// completed the subscription and every payload was read, and the
// connection's error when it ended otherwise.
func (s *Subscription) Next(ctx context.Context) (*Response, error) {
	for {
		s.mu.Lock()
		if len(s.items) > 0 {
			r := s.items[0]
			s.items = s.items[1:]
			s.mu.Unlock()
			return r, nil
		}
		if s.done {
			err := s.err
			s.mu.Unlock()
			if err == nil {
				err = io.EOF
			}
			return nil, err
		}
		s.mu.Unlock()
		select {
		case <-s.notify:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Collect reads payloads until the subscription ends and returns them with
// the terminal error (nil for a normal completion).
func (s *Subscription) Collect(ctx context.Context) ([]*Response, error) {
	var out []*Response
	for {
		r, err := s.Next(ctx)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

// Stop asks the server to stop the subscription and ends it locally.
func (s *Subscription) Stop() {
	s.once.Do(func() {
		if s.stop != nil {
			s.stop()
		}
		s.finish(nil)
	})
}
