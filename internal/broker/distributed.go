package broker

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ragchat/ragchat/internal/defaults"
)

// Defaults of Options.
const (
	DefaultQueueSize      = 4096
	DefaultFlushInterval  = 2 * time.Millisecond
	DefaultMaxBatchEvents = 512
	DefaultMaxBatchBytes  = 64 << 10
	DefaultMaxMergeBytes  = 4 << 10
	DefaultSendTimeout    = 5 * time.Second
	DefaultCloseTimeout   = 2 * time.Second
	defaultRetryMin       = 20 * time.Millisecond
	defaultRetryMax       = 2 * time.Second
)

// Options configures a Distributed broker (NewPostgres, NewNATS). Zero
// fields take the defaults.
type Options struct {
	// Memory configures the local broker that holds this instance's topics,
	// backlogs and subscriptions.
	Memory MemoryOptions
	// Instance names this process in logs and on the wire (host name, pod
	// name…). A random suffix is added, so two processes never share an
	// origin even when configured alike.
	Instance string
	// QueueSize bounds the outbound queue (see outbox): past it DELTAs are
	// dropped, and past twice it anything is. Default 4096.
	QueueSize int
	// FlushInterval is how long the sender waits after an idle spell for
	// more events to batch and merge (default 2 ms). A negative value sends
	// as soon as the sender is free; batches then form only while a send is
	// in flight.
	FlushInterval time.Duration
	// MaxBatchEvents and MaxBatchBytes bound one batch (default 512 events,
	// 64 KiB of payload); a bigger queue is sent in several.
	MaxBatchEvents, MaxBatchBytes int
	// MaxMergeBytes bounds the payload of merged DELTAs (default 4 KiB).
	MaxMergeBytes int
	// Merge merges two consecutive queued events of one topic (default
	// MergeDeltas); it must return false for events it cannot merge.
	Merge func(prev, next Event) (Event, bool)
	// Droppable reports whether an event may be dropped when the queue is
	// full (default: its Kind is DELTA). Terminal events, retirements and
	// cancel requests must not be droppable.
	Droppable func(Event) bool
	// SendTimeout bounds one send to the bus (default 5 s); a failed send
	// is retried with backoff (20 ms doubling to 2 s) until it succeeds or
	// the broker closes.
	SendTimeout time.Duration
	// CloseTimeout bounds the last flush on Close (default 2 s).
	CloseTimeout time.Duration
	// Logger receives connection and loss reports (default slog.Default).
	Logger *slog.Logger
	// Secret is the key material that every instance on the bus shares
	// (RAGCHAT_BROKER_SECRET; at least MinSecretLen bytes, required). The
	// frames are sealed with a key derived from it, so that nothing else
	// that can reach the bus reads or injects them (seal.go).
	Secret []byte
	// PreviousSecrets are secrets being rotated out: frames sealed with
	// them are still accepted, while every frame sent is sealed with
	// Secret.
	PreviousSecrets [][]byte
	// MaxFrameAge is the replay window: a frame sent longer ago than this
	// (by the sender's clock), or as far in the future, is dropped
	// (default 1 minute). Instances' clocks must agree well within it.
	MaxFrameAge time.Duration
}

func (o Options) withDefaults() Options {
	o.Instance = cmp.Or(o.Instance, "ragchat")
	o.QueueSize = defaults.Positive(o.QueueSize, DefaultQueueSize)
	o.FlushInterval = cmp.Or(o.FlushInterval, DefaultFlushInterval)
	o.MaxBatchEvents = defaults.Positive(o.MaxBatchEvents, DefaultMaxBatchEvents)
	o.MaxBatchBytes = defaults.Positive(o.MaxBatchBytes, DefaultMaxBatchBytes)
	o.MaxMergeBytes = defaults.Positive(o.MaxMergeBytes, DefaultMaxMergeBytes)
	if o.Merge == nil {
		o.Merge = MergeDeltas
	}
	if o.Droppable == nil {
		o.Droppable = func(ev Event) bool { return ev.Kind == KindDelta }
	}
	o.SendTimeout = defaults.Positive(o.SendTimeout, DefaultSendTimeout)
	o.CloseTimeout = defaults.Positive(o.CloseTimeout, DefaultCloseTimeout)
	o.Logger = defaults.Logger(o.Logger)
	o.MaxFrameAge = defaults.Positive(o.MaxFrameAge, DefaultMaxFrameAge)
	return o
}

// transport is the bus under a Distributed broker: PostgreSQL NOTIFY or
// NATS. It hands received frames to the receiver from one goroutine, and
// calls receiver.reset when it may have missed some.
type transport interface {
	// maxFrame is the largest (sealed) frame the bus carries.
	maxFrame() int
	// send sends frames in order, and returns once the bus has them.
	send(ctx context.Context, frames [][]byte) error
	// permanent reports whether a send error means the bus will never take
	// these frames (rather than that it is unreachable now). A send that
	// fails permanently has sent none of its frames.
	permanent(err error) bool
	// close disconnects; no frame is received afterwards.
	close() error
}

// Distributed is a Broker shared by several instances: a local Memory
// broker, which serves this instance's subscribers with no added latency
// and keeps each topic's backlog, plus a bus (PostgreSQL LISTEN/NOTIFY or
// NATS) that carries every publish and Retire to the other instances, which
// relay them into their own Memory. A client that reconnects to another
// instance therefore finds the backlog there too.
//
// Publish never waits on the bus: the event is delivered locally and queued
// for a sender goroutine that batches, merges consecutive DELTAs of a topic
// and sends, retrying while the bus is down (the queue then drops DELTAs
// first; see Options.QueueSize). Offsets are local: each instance numbers
// the events it holds, so one event may have different offsets on
// different instances, and merged DELTAs arrive elsewhere as one event.
//
// Losses are detected, never hidden: see relay.go for how a topic's
// backlog stops claiming completeness, and which subscriptions end with
// ErrLagged, when events of another instance were missed (the bus
// reconnected, frames or queued events were dropped, or this instance
// joined a stream midway). Subscribers then resync from the database.
type Distributed struct {
	opts   Options
	origin string
	mem    *Memory
	out    *outbox
	rx     *receiver
	bus    transport
	seal   *sealer
	stats  counters
	txSeq  uint64 // last frame seq sent; sender goroutine only

	// ctx bounds every send; Close cancels it CloseTimeout after asking
	// the sender to stop.
	ctx        context.Context
	cancel     context.CancelFunc
	stop       chan struct{}
	senderDone chan struct{}
	closeOnce  sync.Once
	closeErr   error

	// gate is a test hook (HoldSender): while set, the sender waits for
	// it to be closed.
	gate atomic.Pointer[chan struct{}]
}

var _ Broker = (*Distributed)(nil)

// counters are the Distributed broker's cumulative statistics.
type counters struct {
	sent, frames, sendErrors          atomic.Uint64
	received, gaps, resets, badFrames atomic.Uint64
	rejected                          atomic.Uint64
}

// newDistributed builds a Distributed broker without its bus, whose frames
// are sealed for channel of bus ("postgres", "nats"); start attaches the
// bus. It fails without a secret.
func newDistributed(opts Options, bus, channel string) (*Distributed, error) {
	opts = opts.withDefaults()
	seal, err := newSealer(opts.Secret, opts.PreviousSecrets, bus, channel)
	if err != nil {
		return nil, err
	}
	d := &Distributed{
		opts:       opts,
		origin:     newOrigin(opts.Instance),
		seal:       seal,
		stop:       make(chan struct{}),
		senderDone: make(chan struct{}),
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	d.out = newOutbox(opts)
	d.mem = newMemory(opts.Memory, true, d.out.push)
	d.rx = newReceiver(d.origin, d.mem, opts.Logger, &d.stats, seal, opts.MaxFrameAge)
	return d, nil
}

// startDistributed builds a Distributed broker (newDistributed), opens its
// bus with open and starts it; when open fails it releases the broker.
func startDistributed(opts Options, bus, channel string, open func(*Distributed) (transport, error)) (*Distributed, error) {
	d, err := newDistributed(opts, bus, channel)
	if err != nil {
		return nil, err
	}
	t, err := open(d)
	if err != nil {
		d.abort()
		return nil, err
	}
	d.start(t)
	return d, nil
}

// start attaches the bus and starts the sender.
func (d *Distributed) start(bus transport) {
	d.bus = bus
	go d.run()
}

// abort releases a broker whose bus could not be started.
func (d *Distributed) abort() {
	d.cancel()
	d.out.close()
	_ = d.mem.Close()
}

// newOrigin returns instance, reduced to characters safe in a frame
// header, with a random suffix.
func newOrigin(instance string) string {
	var b strings.Builder
	for _, r := range instance {
		if b.Len() >= 48 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("._:-", r):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	return b.String() + "-" + hex.EncodeToString(suffix[:])
}

// Origin returns the name this instance carries on the wire.
func (d *Distributed) Origin() string { return d.origin }

// Publish delivers ev to this instance's subscribers at once and queues it
// for the other instances. It never blocks on the bus.
func (d *Distributed) Publish(ctx context.Context, ev Event) (Event, error) {
	return d.mem.Publish(ctx, ev)
}

// Subscribe subscribes to topic on this instance, which receives the
// events of every instance. The backlog is complete only when this
// instance holds the topic from its first event: a topic it has not heard
// of yet, or joined midway, reports an incomplete backlog.
func (d *Distributed) Subscribe(ctx context.Context, topic string) (*Subscription, error) {
	return d.mem.Subscribe(ctx, topic)
}

// Retire retires topic here and on every other instance.
func (d *Distributed) Retire(topic string) {
	d.mem.Retire(topic)
	d.out.pushRetire(topic)
}

// Close sends what is queued (for at most Options.CloseTimeout), then
// disconnects from the bus and closes the local broker, ending every
// subscription with ErrClosed. It is idempotent.
func (d *Distributed) Close() error {
	d.closeOnce.Do(func() {
		close(d.stop)
		giveUp := time.AfterFunc(d.opts.CloseTimeout, d.cancel)
		<-d.senderDone
		giveUp.Stop()
		d.cancel()
		d.out.close()
		d.closeErr = d.bus.close()
		_ = d.mem.Close()
	})
	return d.closeErr
}

// DistributedStats describes a Distributed broker's load and its bus
// traffic since it started.
type DistributedStats struct {
	// Stats is the local broker's load.
	Stats
	// Queued is how many events (and retirements) wait to be sent.
	Queued int
	// Sent counts events and retirements sent to the bus (merged DELTAs
	// once), Frames the NOTIFY payloads or NATS messages that carried
	// them, SendErrors the failed sends (each retried).
	Sent, Frames, SendErrors uint64
	// Merged counts DELTAs merged into a queued one.
	Merged uint64
	// Dropped counts DELTAs dropped because the queue was full;
	// DroppedPriority other events dropped past twice the queue size.
	Dropped, DroppedPriority uint64
	// Received counts events and retirements received from other
	// instances.
	Received uint64
	// Gaps counts topics found to have missed events of another instance
	// (their subscriptions ended with ErrLagged).
	Gaps uint64
	// Resets counts the times the bus may have lost events (it
	// reconnected, or frames were missing), each ending the subscriptions
	// of every remote-fed topic with ErrLagged.
	Resets uint64
	// BadFrames counts authenticated frames that could not be decoded.
	BadFrames uint64
	// RejectedFrames counts frames dropped unread because they failed
	// authentication (a forgery, a tampered frame, an instance with
	// another secret, a frame copied from another channel) or were sent
	// outside the replay window (Options.MaxFrameAge).
	RejectedFrames uint64
}

// Stats returns the broker's load and counters.
func (d *Distributed) Stats() DistributedStats {
	return DistributedStats{
		Stats:           d.mem.Stats(),
		Queued:          d.out.len(),
		Sent:            d.stats.sent.Load(),
		Frames:          d.stats.frames.Load(),
		SendErrors:      d.stats.sendErrors.Load(),
		Merged:          d.out.merged.Load(),
		Dropped:         d.out.dropped.Load(),
		DroppedPriority: d.out.droppedPriority.Load(),
		Received:        d.stats.received.Load(),
		Gaps:            d.stats.gaps.Load(),
		Resets:          d.stats.resets.Load(),
		BadFrames:       d.stats.badFrames.Load(),
		RejectedFrames:  d.stats.rejected.Load(),
	}
}
