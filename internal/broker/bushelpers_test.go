package broker_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"log/slog"
	"math"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lib/pq"
	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/testdb"
)

// hangGuard bounds every wait of these tests; it only catches hangs.
const hangGuard = 30 * time.Second

// testBus is one bus (a PostgreSQL database or a NATS server) that the
// cross-instance suites connect several Distributed brokers to. Each test
// gets its own: a fresh database (NOTIFY channels are per database) or a
// fresh in-process NATS server.
type testBus struct {
	name string
	// connect starts a broker on the bus, closed when the test ends.
	connect func(t testing.TB, opts broker.Options) *broker.Distributed
	// stop and start take the bus down and bring it back on the same
	// address (nil when the bus cannot be restarted).
	stop, start func()
	// conns counts the bus's client connections (PostgreSQL sessions on
	// the test database, NATS clients).
	conns func() int
	// intrude connects an intruder to the bus: on PostgreSQL a separate
	// database role that can log in (and do nothing else), on NATS a plain
	// client. It is closed when the test ends.
	intrude func(t testing.TB) intruder
	// wire encodes a sealed frame as the bus carries it (base64 text in a
	// NOTIFY payload, as it is in a NATS message); unwire decodes it.
	wire, unwire func([]byte) []byte
}

// intruder is someone else with access to the bus: it sees every payload
// on the brokers' channel, and can put its own there.
type intruder interface {
	// send puts payload on the brokers' channel, as it is.
	send(t testing.TB, payload []byte)
	// captured waits until at least n payloads were seen and returns them.
	captured(t testing.TB, n int) [][]byte
}

// capture collects the payloads an intruder sees.
type capture struct {
	mu       sync.Mutex
	payloads [][]byte
}

func (c *capture) add(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.payloads = append(c.payloads, p)
}

func (c *capture) captured(t testing.TB, n int) [][]byte {
	t.Helper()
	var out [][]byte
	eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		out = slices.Clone(c.payloads)
		return len(out) >= n
	}, "the intruder sees %d payloads", n)
	return out
}

// busKinds lists the buses every cross-instance suite runs on. restartable
// asks for a bus that stop/start can restart (a private PostgreSQL
// cluster instead of a database on the shared test server).
var busKinds = []struct {
	name string
	open func(t testing.TB, restartable bool) *testBus
}{
	{"postgres", openPostgresBus},
	{"nats", openNATSBus},
}

// forEachBus runs fn as a subtest on every bus. Once fn's brokers are
// closed (their cleanups run first), the goroutine count and the bus's
// connection count must be back at what they were before fn.
func forEachBus(t *testing.T, restartable bool, fn func(t *testing.T, bus *testBus)) {
	for _, k := range busKinds {
		t.Run(k.name, func(t *testing.T) {
			bus := k.open(t, restartable)
			goroutines, conns := runtimeGoroutines(), bus.conns()
			t.Cleanup(func() {
				if t.Failed() {
					return
				}
				eventually(t, func() bool { return bus.conns() <= conns }, "connections return to baseline")
				waitGoroutines(t, goroutines)
			})
			fn(t, bus)
		})
	}
}

func openPostgresBus(t testing.TB, restartable bool) *testBus {
	var dsn string
	b := &testBus{name: "postgres"}
	if restartable {
		c := testdb.StartCluster(t)
		dsn = c.Database()
		b.stop, b.start = c.Stop, c.Start
	} else {
		dsn = testdb.PostgresURL(t)
	}
	b.connect = func(t testing.TB, opts broker.Options) *broker.Distributed {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		opts.Logger = testLogger
		if opts.Secret == nil {
			opts.Secret = testSecret
		}
		d, err := broker.NewPostgres(ctx, dsn, broker.PostgresOptions{
			Options: opts, MinReconnect: 20 * time.Millisecond, MaxReconnect: 200 * time.Millisecond,
		})
		require.NoError(t, err)
		t.Cleanup(func() { _ = d.Close() })
		return d
	}
	b.conns = func() int { // math.MaxInt when the count fails
		db, err := sql.Open("postgres", dsn)
		if err != nil {
			return math.MaxInt
		}
		defer db.Close()
		n := math.MaxInt
		if err := db.QueryRow(
			`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
			return math.MaxInt
		}
		return n
	}
	b.intrude = func(t testing.TB) intruder { return newPGIntruder(t, dsn) }
	b.wire = func(f []byte) []byte { return []byte(base64.StdEncoding.EncodeToString(f)) }
	b.unwire = func(p []byte) []byte {
		f, err := base64.StdEncoding.DecodeString(string(p))
		if err != nil {
			return nil
		}
		return f
	}
	return b
}

// pgIntruder is a separate login role on the test database, with no
// privilege beyond what PostgreSQL grants every role: it may LISTEN and
// NOTIFY.
type pgIntruder struct {
	capture
	db *sql.DB
}

func newPGIntruder(t testing.TB, dsn string) *pgIntruder {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	admin, err := sql.Open("postgres", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close() })
	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	role, password := "intruder_"+hex.EncodeToString(suffix[:]), hex.EncodeToString(suffix[:])+"-pw"
	_, err = admin.ExecContext(ctx, `CREATE ROLE `+pq.QuoteIdentifier(role)+
		` LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD `+pq.QuoteLiteral(password))
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		_, _ = admin.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1`, role)
		_, err := admin.ExecContext(ctx, `DROP ROLE `+pq.QuoteIdentifier(role))
		assert.NoError(t, err, "drop the intruder's role")
	})
	u, err := url.Parse(dsn)
	require.NoError(t, err, "the test database URL is a postgres:// URL")
	u.User = url.UserPassword(role, password)
	idsn := u.String()

	in := &pgIntruder{}
	in.db, err = sql.Open("postgres", idsn)
	require.NoError(t, err)
	in.db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = in.db.Close() })
	var super bool
	require.NoError(t, in.db.QueryRowContext(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&super))
	require.False(t, super, "the intruder is an ordinary role")

	l := pq.NewListener(idsn, 10*time.Millisecond, time.Second, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := range l.Notify {
			if n != nil && n.Channel == broker.DefaultPostgresChannel {
				in.add([]byte(n.Extra))
			}
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-done
	})
	require.NoError(t, l.Listen(broker.DefaultPostgresChannel))
	return in
}

func (in *pgIntruder) send(t testing.TB, payload []byte) {
	t.Helper()
	_, err := in.db.Exec(`SELECT pg_notify($1, $2)`, broker.DefaultPostgresChannel, string(payload))
	require.NoError(t, err)
}

// natsIntruder is another client of the NATS server.
type natsIntruder struct {
	capture
	nc *nats.Conn
}

func newNATSIntruder(t testing.TB, url string) *natsIntruder {
	t.Helper()
	nc, err := nats.Connect(url)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	in := &natsIntruder{nc: nc}
	_, err = nc.Subscribe(broker.DefaultNATSSubject, func(m *nats.Msg) { in.add(slices.Clone(m.Data)) })
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	return in
}

func (in *natsIntruder) send(t testing.TB, payload []byte) {
	t.Helper()
	require.NoError(t, in.nc.Publish(broker.DefaultNATSSubject, payload))
	require.NoError(t, in.nc.Flush())
}

func openNATSBus(t testing.TB, _ bool) *testBus {
	s := startNATSServer(t, -1)
	port := s.Addr().(*net.TCPAddr).Port
	url := "nats://127.0.0.1:" + strconv.Itoa(port)
	var mu sync.Mutex
	b := &testBus{name: "nats"}
	b.stop = func() {
		mu.Lock()
		defer mu.Unlock()
		s.Shutdown()
		s.WaitForShutdown()
	}
	b.start = func() {
		mu.Lock()
		defer mu.Unlock()
		s = startNATSServer(t, port)
	}
	b.connect = func(t testing.TB, opts broker.Options) *broker.Distributed {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		opts.Logger = testLogger
		if opts.Secret == nil {
			opts.Secret = testSecret
		}
		d, err := broker.NewNATS(ctx, url, broker.NATSOptions{Options: opts, ReconnectWait: 20 * time.Millisecond})
		require.NoError(t, err)
		t.Cleanup(func() { _ = d.Close() })
		return d
	}
	b.conns = func() int {
		mu.Lock()
		defer mu.Unlock()
		return s.NumClients()
	}
	b.intrude = func(t testing.TB) intruder { return newNATSIntruder(t, url) }
	b.wire = func(f []byte) []byte { return f }
	b.unwire = b.wire
	return b
}

// startNATSServer runs an in-process NATS server on port (-1: any free
// port), shut down when the test ends.
func startNATSServer(t testing.TB, port int) *natsserver.Server {
	t.Helper()
	s, err := natsserver.NewServer(&natsserver.Options{
		Host: "127.0.0.1", Port: port, NoLog: true, NoSigs: true, MaxControlLine: 4096, DisableShortFirstPing: true,
	})
	require.NoError(t, err)
	go s.Start()
	require.True(t, s.ReadyForConnections(hangGuard), "NATS server did not start")
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s
}

// testSecret is the secret the tests' brokers share (Options.Secret).
var testSecret = []byte("the broker secret of the tests, 32+ bytes")

// testLogger receives the brokers' logs: discarded, unless
// RAGCHAT_TEST_BROKER_LOG=1 asks for them on stderr.
var testLogger = func() *slog.Logger {
	if os.Getenv("RAGCHAT_TEST_BROKER_LOG") == "1" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.DiscardHandler)
}()

// timeAfterGuard fires after the hang guard.
func timeAfterGuard() <-chan time.Time { return time.After(hangGuard) }

// eventually polls cond until it holds, failing after the hang guard.
func eventually(t testing.TB, cond func() bool, msg string, args ...any) {
	t.Helper()
	require.Eventually(t, cond, hangGuard, time.Millisecond, append([]any{msg}, args...)...)
}

// next returns the next live event of s, failing if s ends or nothing
// comes before the hang guard.
func next(t testing.TB, s *broker.Subscription) broker.Event {
	t.Helper()
	select {
	case ev, ok := <-s.C():
		if !ok {
			t.Fatalf("subscription to %s ended: %v", s.Topic(), s.Err())
		}
		return ev
	case <-time.After(hangGuard):
		t.Fatalf("no event on %s", s.Topic())
	}
	return broker.Event{}
}

// until collects the live events of s up to and including the first of
// kind.
func until(t testing.TB, s *broker.Subscription, kind string) []broker.Event {
	t.Helper()
	var out []broker.Event
	for {
		ev := next(t, s)
		out = append(out, ev)
		if ev.Kind == kind {
			return out
		}
	}
}
