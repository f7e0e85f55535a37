package broker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/ragchat/ragchat/internal/defaults"
)

// Defaults of NATSOptions.
const (
	DefaultNATSSubject       = "ragchat.broker"
	defaultNATSReconnectWait = 250 * time.Millisecond
	// natsFrameLimit caps a frame even when the server allows more, to keep
	// one batch's latency low.
	natsFrameLimit = 256 << 10
)

// NATSOptions configures NewNATS. Zero fields take the defaults.
type NATSOptions struct {
	Options
	// Subject is the NATS subject all instances publish and subscribe to
	// (default "ragchat.broker"). Two deployments sharing a NATS server
	// use two subjects.
	Subject string
	// ReconnectWait is the pause between reconnect attempts (default
	// 250 ms, with jitter); the client reconnects forever.
	ReconnectWait time.Duration
	// NATS holds extra client options (credentials, TLS…), applied after
	// the broker's own.
	NATS []nats.Option
}

// NewNATS returns a Distributed broker whose bus is core NATS (no
// JetStream) at url. Events travel as sealed JSON batches on one subject
// (seal.go; it fails without Options.Secret), one message per batch (split,
// like NOTIFY payloads, only beyond the server's max payload). The client reconnects forever; after a reconnect, or when
// its subscription overflowed, remote-fed subscribers resync (see
// Distributed). It fails when the server cannot be reached now.
func NewNATS(ctx context.Context, url string, opts NATSOptions) (*Distributed, error) {
	opts.Subject = cmp.Or(opts.Subject, DefaultNATSSubject)
	opts.ReconnectWait = defaults.Positive(opts.ReconnectWait, defaultNATSReconnectWait)
	return startDistributed(opts.Options, "nats", opts.Subject, func(d *Distributed) (transport, error) {
		return openNATSBus(ctx, url, opts, d)
	})
}

// natsBus publishes frames on one subject and receives them there.
type natsBus struct {
	subject string
	nc      *nats.Conn
	sub     *nats.Subscription
	rx      *receiver
}

func openNATSBus(ctx context.Context, url string, opts NATSOptions, d *Distributed) (*natsBus, error) {
	log := d.opts.Logger
	b := &natsBus{subject: opts.Subject, rx: d.rx}
	own := []nats.Option{
		nats.Name("ragchat broker " + d.origin),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(opts.ReconnectWait),
		// No client-side buffering while disconnected: the broker's own
		// queue buffers, merges and drops, and counts it.
		nats.ReconnectBufSize(-1),
		nats.NoEcho(),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil { // nil: closed by Close
				log.Warn("broker: NATS disconnected; reconnecting", "err", err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) {
			d.rx.reset("NATS reconnected")
		}),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrSlowConsumer) {
				d.rx.reset("NATS subscription overflowed")
				return
			}
			log.Warn("broker: NATS error", "err", err)
		}),
	}
	if dl, ok := ctx.Deadline(); ok {
		own = append(own, nats.Timeout(max(time.Until(dl), time.Millisecond)))
	}
	nc, err := nats.Connect(url, append(own, opts.NATS...)...)
	if err != nil {
		return nil, fmt.Errorf("broker: connect to NATS: %w", err)
	}
	b.nc = nc
	b.sub, err = nc.Subscribe(b.subject, func(m *nats.Msg) { b.rx.frame(m.Data) })
	if err == nil {
		// The server has the subscription once it answers a ping.
		err = flush(ctx, nc)
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("broker: subscribe to NATS subject %s: %w", b.subject, err)
	}
	return b, nil
}

func (b *natsBus) maxFrame() int {
	if p := int(b.nc.MaxPayload()); p > 0 && p < natsFrameLimit {
		return p
	}
	return natsFrameLimit
}

// send publishes the frames in order, then waits for the server to
// acknowledge them (a ping round trip), so that a send that returns nil was
// taken by the server. Frames over the server's limit are refused before
// any is published, so that a refused batch sent nothing.
func (b *natsBus) send(ctx context.Context, frames [][]byte) error {
	limit := b.nc.MaxPayload()
	for _, f := range frames {
		if limit > 0 && int64(len(f)) > limit {
			return nats.ErrMaxPayload
		}
	}
	for _, f := range frames {
		if err := b.nc.Publish(b.subject, f); err != nil {
			return err
		}
	}
	return flush(ctx, b.nc)
}

// flush waits for the server to answer a ping, within ctx and at most
// DefaultSendTimeout (nats.go requires a deadline).
func flush(ctx context.Context, nc *nats.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, DefaultSendTimeout)
	defer cancel()
	return nc.FlushWithContext(ctx)
}

// permanent reports errors that no retry cures.
func (b *natsBus) permanent(err error) bool {
	return errors.Is(err, nats.ErrMaxPayload) || errors.Is(err, nats.ErrBadSubject)
}

func (b *natsBus) close() error {
	_ = b.sub.Unsubscribe()
	b.nc.Close()
	return nil
}
