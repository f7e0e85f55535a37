package broker

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/periodic"
)

// Defaults of PostgresOptions.
const (
	DefaultPostgresChannel = "ragchat_broker"
	// DefaultNotifyPayload is the largest NOTIFY payload sent, well under
	// PostgreSQL's limit of 8000 bytes.
	DefaultNotifyPayload = 7000
	maxNotifyPayload     = 7999
	minNotifyPayload     = 512
	defaultMinReconnect  = 100 * time.Millisecond
	defaultMaxReconnect  = 5 * time.Second
	defaultPingInterval  = 30 * time.Second
)

// PostgresOptions configures NewPostgres. Zero fields take the defaults.
type PostgresOptions struct {
	Options
	// Channel is the NOTIFY channel (default "ragchat_broker"). Instances
	// exchange events only with instances on the same database and
	// channel, so two deployments sharing a database use two channels.
	Channel string
	// MaxPayload bounds one NOTIFY payload (default 7000 bytes; from 512
	// to 7999). Larger batches and events are split into numbered parts.
	MaxPayload int
	// MinReconnect and MaxReconnect bound the listener's reconnect backoff
	// (default 100 ms doubling to 5 s).
	MinReconnect, MaxReconnect time.Duration
	// PingInterval is how often the listener's connection is checked, so a
	// connection that died silently (failover) is noticed (default 30 s).
	PingInterval time.Duration
}

// NewPostgres returns a Distributed broker whose bus is PostgreSQL
// LISTEN/NOTIFY on the database at dsn. Its payloads are sealed frames in
// base64, which no other database role can read or forge (seal.go); it
// fails without Options.Secret. It holds two connections of its
// own: a pq.Listener and one connection that sends NOTIFYs, one batch per
// statement, in order. It waits (until ctx is done) for the listener's
// first connection, so that it receives every event published after it
// returns. Later outages are survived: both connections reconnect with
// backoff while Publish keeps working, and subscribers of remote-fed topics
// resync (see Distributed).
func NewPostgres(ctx context.Context, dsn string, opts PostgresOptions) (*Distributed, error) {
	opts.Channel = cmp.Or(opts.Channel, DefaultPostgresChannel)
	if len(opts.Channel) > 63 {
		return nil, fmt.Errorf("broker: NOTIFY channel %q is longer than 63 bytes", opts.Channel)
	}
	opts.MaxPayload = defaults.Positive(opts.MaxPayload, DefaultNotifyPayload)
	if opts.MaxPayload > maxNotifyPayload {
		return nil, fmt.Errorf("broker: NOTIFY payload of %d bytes exceeds PostgreSQL's limit", opts.MaxPayload)
	}
	if opts.MaxPayload < minNotifyPayload {
		return nil, fmt.Errorf("broker: NOTIFY payload of %d bytes leaves no room for a sealed frame (at least %d)", opts.MaxPayload, minNotifyPayload)
	}
	opts.MinReconnect = defaults.Positive(opts.MinReconnect, defaultMinReconnect)
	if opts.MaxReconnect < opts.MinReconnect {
		opts.MaxReconnect = max(defaultMaxReconnect, opts.MinReconnect)
	}
	opts.PingInterval = defaults.Positive(opts.PingInterval, defaultPingInterval)
	return startDistributed(opts.Options, "postgres", opts.Channel, func(d *Distributed) (transport, error) {
		return openPostgresBus(ctx, dsn, opts, d)
	})
}

// postgresBus sends frames with pg_notify and receives them with a
// pq.Listener.
type postgresBus struct {
	channel string
	payload int
	db      *sql.DB // the sending connection (a pool of one)
	l       *pq.Listener
	rx      *receiver
	stop    chan struct{}
	drained chan struct{} // closed when the listener's channel is closed
	pinged  chan struct{} // closed when the pinger returns
	timeout time.Duration
	once    sync.Once
}

func openPostgresBus(ctx context.Context, dsn string, opts PostgresOptions, d *Distributed) (*postgresBus, error) {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(30 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("broker: connect to PostgreSQL: %w", err)
	}
	log := d.opts.Logger
	b := &postgresBus{
		channel: opts.Channel,
		payload: opts.MaxPayload,
		db:      db,
		rx:      d.rx,
		stop:    make(chan struct{}),
		drained: make(chan struct{}),
		pinged:  make(chan struct{}),
		timeout: d.opts.CloseTimeout,
	}
	b.l = pq.NewListener(dsn, opts.MinReconnect, opts.MaxReconnect, func(ev pq.ListenerEventType, err error) {
		switch ev {
		case pq.ListenerEventDisconnected:
			log.Warn("broker: PostgreSQL listener disconnected; reconnecting", "err", err)
		case pq.ListenerEventReconnected:
			log.Info("broker: PostgreSQL listener reconnected")
		}
	})
	go b.drain()
	listened := make(chan error, 1)
	go func() { listened <- b.l.Listen(b.channel) }()
	select {
	case err = <-listened:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		b.closeListener(false)
		_ = db.Close()
		return nil, fmt.Errorf("broker: LISTEN %s: %w", b.channel, err)
	}
	go b.ping(opts.PingInterval)
	return b, nil
}

// maxFrame is the largest sealed frame whose base64 form fits a payload
// (5,250 bytes in the default 7,000).
func (b *postgresBus) maxFrame() int { return base64.StdEncoding.DecodedLen(b.payload) }

// send notifies every frame, in base64 (NOTIFY payloads are text), in one
// statement, so that they commit, and are delivered, together and in
// order, or not at all.
func (b *postgresBus) send(ctx context.Context, frames [][]byte) error {
	if len(frames) == 1 {
		_, err := b.db.ExecContext(ctx, `SELECT pg_notify($1, $2)`, b.channel, base64.StdEncoding.EncodeToString(frames[0]))
		return err
	}
	payloads := make([]string, len(frames))
	for i, f := range frames {
		payloads[i] = base64.StdEncoding.EncodeToString(f)
	}
	_, err := b.db.ExecContext(ctx,
		`SELECT pg_notify($1, f) FROM unnest($2::text[]) WITH ORDINALITY AS u(f, n) ORDER BY n`,
		b.channel, pq.Array(payloads))
	return err
}

// permanent reports data exceptions (SQLSTATE class 22: a payload too
// long or not valid in the database's encoding), which no retry cures.
func (b *postgresBus) permanent(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code.Class() == "22"
}

// drain takes every notification off the listener's channel (which holds
// only 32) and relays it at once, so the listener's connection never
// stalls. A nil notification follows a reconnect: events may have been
// missed. It returns when the listener closes its channel.
func (b *postgresBus) drain() {
	defer close(b.drained)
	for n := range b.l.Notify {
		select {
		case <-b.stop:
			continue // closing: keep draining until the listener is gone
		default:
		}
		if n == nil {
			b.rx.reset("PostgreSQL listener reconnected")
			continue
		}
		if n.Channel == b.channel {
			// A payload that is not base64 is rejected as unsealed.
			f, _ := base64.StdEncoding.DecodeString(n.Extra)
			b.rx.frame(f)
		}
	}
}

// ping checks the listener's connection every interval, so that a dead one
// is replaced.
func (b *postgresBus) ping(interval time.Duration) {
	defer close(b.pinged)
	periodic.Every(b.stop, interval, func() bool {
		_ = b.l.Ping()
		return true
	})
}

// closeListener closes the listener and waits, at most the close timeout,
// for its goroutines to end: pq.Listener.Close (and Ping) wait for a
// connection attempt in progress, and the listener sleeps out a reconnect
// backoff before it notices. Past the timeout they end on their own.
func (b *postgresBus) closeListener(pinger bool) {
	b.once.Do(func() { close(b.stop) })
	go func() { _ = b.l.Close() }()
	timer := time.NewTimer(b.timeout)
	defer timer.Stop()
	for _, done := range []chan struct{}{b.drained, b.pinged} {
		if done == b.pinged && !pinger {
			continue
		}
		select {
		case <-done:
		case <-timer.C:
			return
		}
	}
}

func (b *postgresBus) close() error {
	b.closeListener(true)
	return b.db.Close()
}
