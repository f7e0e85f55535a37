package testdb_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/lib/pq"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/testdb"
)

// adminDB opens the configured admin database for checks made from outside
// the database under test.
// needPostgres fails (or skips) the test with PostgresURL's standard
// message when the PostgreSQL tests do not run.
func needPostgres(t *testing.T) {
	t.Helper()
	if os.Getenv(testdb.EnvDatabaseURL) == "" || os.Getenv(testdb.EnvBackends) == testdb.NameSQLite {
		testdb.PostgresURL(t)
	}
}

func adminDB(t *testing.T) *sql.DB {
	t.Helper()
	needPostgres(t)
	base := os.Getenv(testdb.EnvDatabaseURL)
	db, err := sql.Open("postgres", base)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, db.Close()) })
	return db
}

func databaseExists(t *testing.T, admin *sql.DB, name string) bool {
	t.Helper()
	var n int
	require.NoError(t, admin.QueryRowContext(context.Background(),
		"SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n))
	return n == 1
}

func openPostgres(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, db.Close()) })
	return db
}

func TestPostgresURLCreatesFreshDatabaseWithVector(t *testing.T) {
	admin := adminDB(t)
	var name string
	t.Run("inside", func(t *testing.T) {
		db := openPostgres(t, testdb.PostgresURL(t))
		ctx := context.Background()
		require.NoError(t, db.QueryRowContext(ctx, "SELECT current_database()").Scan(&name))
		assert.True(t, strings.HasPrefix(name, "test_testpostgresurlcreatesfresh"), name)

		var tables int
		require.NoError(t, db.QueryRowContext(ctx,
			"SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables))
		assert.Zero(t, tables, "a new database has no tables")

		var dist float64
		require.NoError(t, db.QueryRowContext(ctx,
			"SELECT '[1,2,3]'::vector <=> '[1,2,4]'::vector").Scan(&dist))
		// Cosine distance: 1 - 17/sqrt(14*21).
		assert.InDelta(t, 0.00853986601633272, dist, 1e-12)

		_, err := db.ExecContext(ctx, "CREATE TABLE chunk (id int PRIMARY KEY, embedding vector(3))")
		require.NoError(t, err)
		_, err = db.ExecContext(ctx, "INSERT INTO chunk VALUES (1, '[1,0,0]'), (2, '[0,1,0]')")
		require.NoError(t, err)
		var nearest int
		require.NoError(t, db.QueryRowContext(ctx,
			"SELECT id FROM chunk ORDER BY embedding <=> '[0.1,0.9,0]' LIMIT 1").Scan(&nearest))
		assert.Equal(t, 2, nearest)

		assert.True(t, databaseExists(t, admin, name), "database exists while the test runs")
	})
	require.NotEmpty(t, name)
	assert.False(t, databaseExists(t, admin, name), "database %s is dropped when its test ends", name)
}

func TestPostgresURLIsUniquePerCall(t *testing.T) {
	a, b := testdb.PostgresURL(t), testdb.PostgresURL(t)
	assert.NotEqual(t, a, b)
	// The databases are independent: a table in one is absent in the other.
	_, err := openPostgres(t, a).Exec("CREATE TABLE only_in_a (id int)")
	require.NoError(t, err)
	var n int
	require.NoError(t, openPostgres(t, b).QueryRow(
		"SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'").Scan(&n))
	assert.Zero(t, n)
}

func TestPostgresURLDropsDatabaseWithOpenConnections(t *testing.T) {
	admin := adminDB(t)
	var name string
	var leaked *sql.DB
	t.Run("inside", func(t *testing.T) {
		// This connection stays open past the test; DROP ... WITH (FORCE)
		// must still remove the database.
		var err error
		leaked, err = sql.Open("postgres", testdb.PostgresURL(t))
		require.NoError(t, err)
		require.NoError(t, leaked.QueryRow("SELECT current_database()").Scan(&name))
	})
	defer leaked.Close()
	assert.False(t, databaseExists(t, admin, name))
}

func TestPostgresURLParallel(t *testing.T) {
	needPostgres(t)
	const n = 12
	var mu sync.Mutex
	names := map[string]bool{}
	t.Run("group", func(t *testing.T) {
		for i := range n {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				db := openPostgres(t, testdb.PostgresURL(t))
				var name string
				require.NoError(t, db.QueryRow("SELECT current_database()").Scan(&name))
				_, err := db.Exec("CREATE TABLE t (v vector(2))")
				require.NoError(t, err)
				mu.Lock()
				names[name] = true
				mu.Unlock()
			})
		}
	})
	assert.Len(t, names, n, "every parallel test gets its own database")
}

func TestPostgresURLAcceptsKeyValueConnectionString(t *testing.T) {
	needPostgres(t)
	kv, err := pq.ParseURL(os.Getenv(testdb.EnvDatabaseURL))
	require.NoError(t, err)
	t.Setenv(testdb.EnvDatabaseURL, kv)

	dsn := testdb.PostgresURL(t)
	var name string
	require.NoError(t, openPostgres(t, dsn).QueryRow("SELECT current_database()").Scan(&name))
	assert.True(t, strings.HasPrefix(name, "test_"), name)
	assert.Contains(t, dsn, "dbname="+name)
}

func TestMissingDatabaseURL(t *testing.T) {
	tests := []struct {
		name        string
		skip        string
		call        func(testing.TB) any
		wantFatal   string
		wantSkipped bool
		wantResult  []string // backend names, for Backends
	}{
		{name: "PostgresURL fails without URL", call: func(tb testing.TB) any { return testdb.PostgresURL(tb) }, wantFatal: "make test"},
		{name: "PostgresURL fails when skip is not 1", skip: "true", call: func(tb testing.TB) any { return testdb.PostgresURL(tb) }, wantFatal: testdb.EnvDatabaseURL + " is not set"},
		{name: "PostgresURL skips with explicit skip", skip: "1", call: func(tb testing.TB) any { return testdb.PostgresURL(tb) }, wantSkipped: true},
		{name: "Backends fails without URL", call: func(tb testing.TB) any { return testdb.Backends(tb) }, wantFatal: "make test"},
		{name: "Backends keeps sqlite with explicit skip", skip: "1", call: func(tb testing.TB) any { return testdb.Backends(tb) }, wantResult: []string{"sqlite"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(testdb.EnvDatabaseURL, "")
			t.Setenv(testdb.EnvSkipPostgres, tt.skip)
			t.Setenv(testdb.EnvBackends, "")
			var result any
			f, completed := runFake(t, func(tb testing.TB) { result = tt.call(tb) })
			switch {
			case tt.wantFatal != "":
				assert.False(t, completed)
				assert.Contains(t, f.fatal, tt.wantFatal)
				assert.Contains(t, f.fatal, testdb.EnvSkipPostgres+"=1", "the message tells how to skip")
			case tt.wantSkipped:
				assert.False(t, completed)
				assert.Empty(t, f.fatal)
				assert.Contains(t, f.skipped, "SKIPPING")
			default:
				require.True(t, completed, "fatal: %s", f.fatal)
				var names []string
				for _, b := range result.([]testdb.Backend) {
					names = append(names, b.Name)
				}
				assert.Equal(t, tt.wantResult, names)
				require.Len(t, f.logs, 1)
				assert.Contains(t, f.logs[0], "SKIPPING the postgres backend")
			}
		})
	}
}
