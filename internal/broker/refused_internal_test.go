package broker

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/testdb"
)

// TestRefusedBatchIsDroppedNotRetriedForever makes PostgreSQL refuse a
// batch (its NOTIFY payloads are over the server's 8000-byte limit, which
// NewPostgres never allows): the sender drops it, counts it and announces
// the loss, so B's subscriber ends with ErrLagged instead of waiting, and
// later batches still flow. The loss is announced once, by the lost marker
// alone: the refused frames' seqs are taken back, so B sees no gap in the
// frame seqs, does not reset, and a subscription made after the
// announcement is not ended by a second one.
func TestRefusedBatchIsDroppedNotRetriedForever(t *testing.T) {
	dsn := testdb.PostgresURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	quiet := Options{Logger: slog.New(slog.DiscardHandler), Secret: testSecret}
	a, err := NewPostgres(ctx, dsn, PostgresOptions{Options: quiet})
	require.NoError(t, err)
	defer a.Close()
	b, err := NewPostgres(ctx, dsn, PostgresOptions{Options: quiet})
	require.NoError(t, err)
	defer b.Close()

	sub, err := b.Subscribe(ctx, "attempt:1")
	require.NoError(t, err)
	_, err = a.Publish(ctx, Event{Topic: "attempt:1", Kind: "STARTED"})
	require.NoError(t, err)
	require.Equal(t, "STARTED", (<-sub.C()).Kind)

	pg := a.bus.(*postgresBus)
	release := HoldSender(a)
	// Payloads up to 9000 bytes from now on: PostgreSQL refuses the big
	// batch, and takes the small ones. Set while the sender is held, so
	// that it reads it only after release.
	pg.payload = 9000
	_, err = a.Publish(ctx, Event{Topic: "attempt:1", Kind: "SOURCES", Data: []byte(`"` + strings.Repeat("x", 8500) + `"`)})
	require.NoError(t, err)
	release()
	select {
	case <-sub.Done():
		assert.ErrorIs(t, sub.Err(), ErrLagged, "the lost SOURCES is announced")
	case <-time.After(30 * time.Second):
		t.Fatal("the subscriber waits for an event that was dropped")
	}
	require.Eventually(t, func() bool { return a.Stats().DroppedPriority == 1 }, 30*time.Second, time.Millisecond)
	assert.Zero(t, b.Stats().Resets, "the refused batch left no gap in A's frame seqs")

	again, err := b.Subscribe(ctx, "attempt:1")
	require.NoError(t, err)
	_, err = a.Publish(ctx, Event{Topic: "attempt:1", Kind: "COMPLETED"})
	require.NoError(t, err)
	select {
	case ev, ok := <-again.C():
		require.True(t, ok, "the resubscription ended: %v", again.Err())
		assert.Equal(t, "COMPLETED", ev.Kind)
	case <-time.After(30 * time.Second):
		t.Fatal("later events no longer flow")
	}
	assert.Positive(t, a.Stats().SendErrors)
	assert.Zero(t, b.Stats().Resets)
}

func TestPermanentSendErrors(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		dsn := testdb.PostgresURL(t)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		d, err := NewPostgres(ctx, dsn, PostgresOptions{Options: Options{Logger: slog.New(slog.DiscardHandler), Secret: testSecret}})
		require.NoError(t, err)
		bus := d.bus.(*postgresBus)
		err = bus.send(ctx, [][]byte{[]byte(strings.Repeat("x", 8001))})
		require.Error(t, err)
		assert.True(t, bus.permanent(err), "payload too long: %v", err)
		require.NoError(t, d.Close())
		err = bus.send(ctx, [][]byte{[]byte("x")})
		require.Error(t, err)
		assert.False(t, bus.permanent(err), "a closed connection may come back: %v", err)
	})
	t.Run("nats", func(t *testing.T) {
		s, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true, MaxPayload: 1024})
		require.NoError(t, err)
		go s.Start()
		require.True(t, s.ReadyForConnections(30*time.Second))
		defer s.Shutdown()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		d, err := NewNATS(ctx, s.ClientURL(), NATSOptions{Options: Options{Logger: slog.New(slog.DiscardHandler), Secret: testSecret}})
		require.NoError(t, err)
		defer d.Close()
		bus := d.bus.(*natsBus)
		assert.Equal(t, 1024, bus.maxFrame(), "frames follow the server's max payload")
		err = bus.send(ctx, [][]byte{make([]byte, 2048)})
		require.Error(t, err)
		assert.True(t, bus.permanent(err))
	})
}
