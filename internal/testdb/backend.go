package testdb

import (
	"context"
	"database/sql"
	"testing"

	"entgo.io/ent/dialect"
	_ "github.com/lib/pq" // registers the "postgres" database/sql driver
)

// PostgresDriver is the database/sql driver name of github.com/lib/pq.
const PostgresDriver = "postgres"

// Backend describes one database a backend-independent test suite runs on.
type Backend struct {
	// Name is the subtest name: exactly "postgres" or "sqlite". The test
	// summary (internal/tools/testsummary) counts tests per backend by it.
	Name string
	// Dialect is the Ent dialect (dialect.Postgres or dialect.SQLite), as
	// passed to entsql.OpenDB.
	Dialect string
	// Driver is the database/sql driver name for sql.Open: "postgres"
	// (lib/pq) or "sqlite" (modernc.org/sqlite).
	Driver string
	// DSN is the connection string of a fresh database owned by the test.
	DSN string
}

// Backends returns a fresh PostgreSQL database and a fresh SQLite database,
// in that order, both removed when the test ends. Run the shared suite once
// per backend with t.Run(b.Name, ...).
//
// Like PostgresURL it fails the test when EnvDatabaseURL is unset. When
// EnvSkipPostgres is "1" it logs loudly and returns only the SQLite backend
// (the test summary then reports that no PostgreSQL suite ran). EnvBackends
// may select one backend.
func Backends(t testing.TB) []Backend {
	t.Helper()
	return backends(t, runs)
}

// BothBackends is Backends whatever EnvBackends selects, for a test that
// compares the two backends with each other (the same query, the same
// answer): it needs both in one run.
func BothBackends(t testing.TB) []Backend {
	t.Helper()
	return backends(t, func(string) bool { return true })
}

// backends returns the backends for which use reports true.
func backends(t testing.TB, use func(name string) bool) []Backend {
	t.Helper()
	var out []Backend
	if use(NamePostgres) {
		if base, ok := adminURL(t); ok {
			out = append(out, Backend{Name: NamePostgres, Dialect: dialect.Postgres, Driver: PostgresDriver, DSN: createDatabase(t, base)})
		} else {
			t.Logf("SKIPPING the postgres backend: %s is unset and %s=1", EnvDatabaseURL, EnvSkipPostgres)
		}
	}
	if use(NameSQLite) {
		out = append(out, Backend{Name: NameSQLite, Dialect: dialect.SQLite, Driver: SQLiteDriver, DSN: SQLiteDSN(t)})
	}
	return out
}

// Open opens and pings the backend's database with its driver, failing the
// test on error, and closes it when the test ends.
func (b Backend) Open(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open(b.Driver, b.DSN)
	if err != nil {
		t.Fatalf("testdb: open %s: %v", b.Name, err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("testdb: close %s: %v", b.Name, err)
		}
	})
	if err := db.PingContext(context.Background()); err != nil {
		t.Fatalf("testdb: ping %s: %v", b.Name, err)
	}
	return db
}

// PostgresBackend is the PostgreSQL backend alone, for a test that needs
// PostgreSQL itself (replicas sharing its LISTEN/NOTIFY broker): a fresh
// database as PostgresURL makes it, failing or skipping as PostgresURL does.
func PostgresBackend(t testing.TB) Backend {
	t.Helper()
	return Backend{Name: NamePostgres, Dialect: dialect.Postgres, Driver: PostgresDriver, DSN: PostgresURL(t)}
}
