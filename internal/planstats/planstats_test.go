package planstats_test

import (
	"context"
	"database/sql"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/planstats"
	"github.com/ragchat/ragchat/internal/testdb"
)

// tickUntil calls Tick until it names table (the statistics system learns
// of a connection's changes within a second or so of it going idle) or
// 30 s pass, and returns every name it returned.
func tickUntil(t *testing.T, k *planstats.Keeper, table string) []string {
	t.Helper()
	var all []string
	for deadline := time.Now().Add(30 * time.Second); !slices.Contains(all, table) && time.Now().Before(deadline); {
		got, err := k.Tick(context.Background())
		require.NoError(t, err)
		all = append(all, got...)
		time.Sleep(50 * time.Millisecond)
	}
	return all
}

// exec runs the statements in order.
func exec(t *testing.T, db *sql.DB, statements ...string) {
	t.Helper()
	for _, q := range statements {
		_, err := db.ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
}

// The tests' tables keep autovacuum away (autovacuum_enabled = false), so
// that only the keeper analyses them, even on a busy machine.

// TestKeeperAnalysesYoungTablesOnly: a table that grew past its statistics
// (MinChanges rows and Growth of what they counted) is analysed once; a
// table with fewer changes, and the grown one right after, are not.
func TestKeeperAnalysesYoungTablesOnly(t *testing.T) {
	t.Parallel()
	db := testdb.PostgresBackend(t).Open(t)
	ctx := context.Background()
	exec(t, db, "CREATE TABLE grown (id int PRIMARY KEY) WITH (autovacuum_enabled = false)", "CREATE TABLE steady (id int PRIMARY KEY) WITH (autovacuum_enabled = false)",
		"INSERT INTO steady SELECT generate_series(1, 1000)")
	// ANALYZE forgets the changes the statistics system knows of; wait
	// until it knows of these, or they would count as changes after it.
	require.Eventually(t, func() bool {
		var n int64
		require.NoError(t, db.QueryRowContext(ctx, "SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'steady'").Scan(&n))
		return n == 1000
	}, 30*time.Second, 50*time.Millisecond)
	exec(t, db, "ANALYZE grown", "ANALYZE steady",
		"INSERT INTO grown SELECT generate_series(1, 500)", "INSERT INTO steady SELECT generate_series(1001, 1100)")
	k := planstats.New(db, nil)
	analysed := tickUntil(t, k, "grown")
	require.Equal(t, []string{"grown"}, analysed, "only the grown table is young")
	var tuples float64
	require.NoError(t, db.QueryRowContext(ctx, "SELECT reltuples FROM pg_class WHERE relname = 'grown'").Scan(&tuples))
	require.EqualValues(t, 500, tuples, "ANALYZE counted the grown table")
	again, err := k.Tick(ctx)
	require.NoError(t, err)
	require.Empty(t, again)
}

// TestKeeperSkipsWhileAnotherReplicaAnalyses: while one replica holds the
// keeper's lock, another's Tick does nothing and fails nothing; after it,
// the other analyses.
func TestKeeperSkipsWhileAnotherReplicaAnalyses(t *testing.T) {
	t.Parallel()
	db := testdb.PostgresBackend(t).Open(t)
	ctx := context.Background()
	exec(t, db, "CREATE TABLE grown (id int PRIMARY KEY) WITH (autovacuum_enabled = false)", "ANALYZE grown", "INSERT INTO grown SELECT generate_series(1, 500)")
	other, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	var locked bool
	require.NoError(t, other.QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock($1)", int64(0x7261_6763_7374_6174)).Scan(&locked))
	require.True(t, locked)
	k := planstats.New(db, nil)
	time.Sleep(1500 * time.Millisecond) // the insert reaches the statistics system
	got, err := k.Tick(ctx)
	require.NoError(t, err)
	require.Empty(t, got, "another replica holds the lock")
	require.NoError(t, other.Rollback())
	require.Equal(t, []string{"grown"}, tickUntil(t, k, "grown"))
}

// TestKeeperRunOutlivesAStoppedDatabase: while the database is gone, each
// round fails, is logged and the loop goes on; it returns when its
// context ends.
func TestKeeperRunOutlivesAStoppedDatabase(t *testing.T) {
	t.Parallel()
	gone, err := sql.Open(testdb.PostgresDriver, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	require.NoError(t, err)
	defer gone.Close()
	var logged strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logged.Write(p)
	}), nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		planstats.New(gone, log).Run(ctx, 20*time.Millisecond)
	}()
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Count(logged.String(), "planner statistics not refreshed") >= 2
	}, 30*time.Second, 20*time.Millisecond, "two failed rounds, logged")
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

// writerFunc is an io.Writer of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
