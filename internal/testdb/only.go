package testdb

import (
	"os"
	"testing"
)

// EnvBackends names the environment variable that runs the backend suites
// on one backend only: "postgres" or "sqlite". Unset or empty runs both.
//
// `make test` runs the Go tests twice (scripts/test.sh): every test under
// the race detector with RAGCHAT_TEST_BACKENDS=postgres, then the packages
// with SQLite suites without it and with RAGCHAT_TEST_BACKENDS=sqlite. The
// SQLite driver (modernc.org/sqlite) is C translated to Go, which the race
// detector slows about sixteen times (docs/TESTING.md); the code under
// test is the same on both backends and is raced on PostgreSQL.
const EnvBackends = "RAGCHAT_TEST_BACKENDS"

// Backend names, as Backend.Name and EnvBackends spell them.
const (
	NamePostgres = "postgres"
	NameSQLite   = "sqlite"
)

// runs reports whether the suites run on the backend named name.
func runs(name string) bool {
	only := os.Getenv(EnvBackends)
	return only == "" || only == name
}

// skipUnlessPostgresRuns skips a PostgreSQL-only test (PostgresURL,
// StartCluster) when EnvBackends selects SQLite alone: the race pass of
// `make test` ran it.
func skipUnlessPostgresRuns(t testing.TB) {
	t.Helper()
	if !runs(NamePostgres) {
		t.Skipf("PostgreSQL test: %s=%s runs the SQLite suites only", EnvBackends, os.Getenv(EnvBackends))
	}
}
