package authwatch_test

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/testdb"
)

// hangGuard bounds every wait; it only catches hangs.
const hangGuard = 30 * time.Second

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// replicas are two brokers of one deployment: two PostgreSQL brokers on
// one database, or two views of one Memory broker (as servertest shares
// one between instances).
type replicas struct {
	name string
	a, b broker.Broker
	// terminateListeners drops the PostgreSQL LISTEN connections, which
	// makes each Distributed broker reset (nil for Memory).
	terminateListeners func(t *testing.T)
}

// eachDeployment runs fn on a shared Memory broker and on two PostgreSQL
// brokers, and checks that the goroutine count is back at its baseline
// once fn's cleanups (brokers, watches) have run.
func eachDeployment(t *testing.T, fn func(t *testing.T, r replicas)) {
	kinds := []struct {
		name string
		open func(t *testing.T, dsn string) replicas
	}{
		{"memory", func(t *testing.T, _ string) replicas {
			m := broker.NewMemory(broker.MemoryOptions{})
			t.Cleanup(func() { _ = m.Close() })
			return replicas{a: m, b: m}
		}},
		{"postgres", func(t *testing.T, dsn string) replicas {
			connect := func(name string) broker.Broker {
				ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
				defer cancel()
				d, err := broker.NewPostgres(ctx, dsn, broker.PostgresOptions{
					Options:      broker.Options{Instance: name, Logger: quiet, Secret: busSecret},
					MinReconnect: 20 * time.Millisecond, MaxReconnect: 200 * time.Millisecond,
				})
				require.NoError(t, err)
				t.Cleanup(func() { _ = d.Close() })
				return d
			}
			r := replicas{a: connect("a"), b: connect("b")}
			r.terminateListeners = func(t *testing.T) {
				db, err := sql.Open("postgres", dsn)
				require.NoError(t, err)
				defer db.Close()
				var n int
				require.NoError(t, db.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
					WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN %'`).Scan(&n))
				require.Positive(t, n, "no LISTEN connection to terminate")
			}
			return r
		}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			var dsn string
			if k.name == "postgres" {
				dsn = testdb.PostgresURL(t) // before the baseline: its pool lives on
			}
			baseline := runtime.NumGoroutine()
			t.Cleanup(func() {
				if !t.Failed() {
					waitGoroutines(t, baseline)
				}
			})
			r := k.open(t, dsn)
			r.name = k.name
			fn(t, r)
		})
	}
}

// waitGoroutines waits until at most want goroutines run.
func waitGoroutines(t testing.TB, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("goroutines: %d, want <= %d\n%s", runtime.NumGoroutine(), want, buf)
		}
		time.Sleep(time.Millisecond)
	}
}

// marker publishes an event on a topic of its own through from and waits
// until to delivers it. Brokers deliver one origin's events in order, so
// everything from published before is delivered by to by then.
func marker(t *testing.T, from, to broker.Broker) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	topic := "marker:" + t.Name()
	sub, err := to.Subscribe(ctx, topic)
	require.NoError(t, err)
	defer sub.Close()
	// A Distributed broker learns of a subscription only locally, so the
	// marker is published until it arrives (the first may precede nothing).
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		_, err := from.Publish(ctx, broker.Event{Topic: topic, Kind: "MARK"})
		require.NoError(t, err)
		select {
		case <-sub.C():
			return
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("the marker never arrived")
		}
	}
}

// busSecret is the secret the tests' replicas share to seal their broker
// frames (broker.Options.Secret).
var busSecret = []byte("the authwatch tests' broker secret, 32+ bytes")
