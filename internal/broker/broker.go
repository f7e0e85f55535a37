// Package broker fans out live answer-stream events (attempt progress,
// conversation messages) to subscribers.
//
// Events are small and JSON-serialisable, and ordered per topic: the broker
// numbers each topic's events 1, 2, 3… in publish order. A subscriber first
// receives a backlog snapshot of what the topic still holds and then every
// later event live, with no gap and no duplicate between the two, so a
// client that reconnects can resume from the last offset it saw.
//
// Memory is the in-process implementation, for a single process (and
// SQLite). Distributed serves several instances: each keeps a Memory for its
// own subscribers and backlogs, and a bus carries every event to the
// others — PostgreSQL LISTEN/NOTIFY (NewPostgres) or NATS (NewNATS). Offsets
// are per instance; internal/broker/README.md, describes the design, the
// wire format and what happens when events are lost.
package broker

import (
	"context"
	"errors"
)

// Errors a Subscription ends with (see Subscription.Err) or that Publish and
// Subscribe return.
var (
	// ErrClosed: the subscription was closed, or the broker was.
	ErrClosed = errors.New("broker: closed")
	// ErrLagged: the subscriber did not keep up and its buffer overflowed.
	// It must resubscribe and resync (from the backlog or the database).
	ErrLagged = errors.New("broker: subscriber lagged")
	// ErrExpired: the topic was retired and its grace period ran out, so
	// the broker forgot it. No further events will arrive.
	ErrExpired = errors.New("broker: topic expired")
	// ErrNoTopic: an event or subscription named no topic.
	ErrNoTopic = errors.New("broker: empty topic")
)

// Event is one message on a topic.
type Event struct {
	// Topic names the stream, e.g. "attempt:<uuid>" or
	// "conversation:<uuid>".
	Topic string `json:"topic"`
	// Offset is assigned by the broker: 1, 2, 3… per topic, in publish
	// order. Publish ignores the value it is given.
	Offset int64 `json:"offset"`
	// Kind is the publisher's event type ("STARTED", "SOURCES", "DELTA",
	// "COMPLETED", "FAILED", "MESSAGE", "ATTEMPT", …), opaque to the broker.
	Kind string `json:"kind"`
	// Seq is publisher-defined; for DELTA it is the answer length in code
	// points after the delta.
	Seq int `json:"seq"`
	// Data is a small JSON payload, opaque to the broker. Subscribers share
	// it and must not modify it.
	Data []byte `json:"data,omitempty"`
}

// Broker publishes events to topics and lets callers subscribe to them.
// Implementations are safe for concurrent use.
type Broker interface {
	// Publish appends ev to its topic and delivers it to the topic's
	// subscribers. It never blocks on a subscriber. It returns the event
	// with Offset set.
	Publish(ctx context.Context, ev Event) (Event, error)
	// Subscribe returns a subscription to topic: a backlog snapshot plus
	// every event published after it. The subscription ends when ctx is
	// done.
	Subscribe(ctx context.Context, topic string) (*Subscription, error)
	// Retire marks topic finished (its attempt completed or failed). The
	// broker keeps its backlog for a grace period, for late resumers, and
	// then forgets it.
	Retire(topic string)
	// Close ends every subscription with ErrClosed and releases the
	// broker's resources. Later calls fail with ErrClosed.
	Close() error
}
