// Package testdb provides databases for tests: a fresh PostgreSQL database
// with pgvector per test (PostgresURL), an embedded SQLite file per test
// (SQLiteDSN), and both as a list for suites that must pass on every backend
// (Backends).
//
// PostgreSQL comes from the RAGCHAT_TEST_DATABASE_URL environment variable,
// which `make test` sets after starting a throwaway PostgreSQL 15 cluster
// with pgvector (scripts/pgtest.sh). The URL must name a role that may create
// and drop databases. A test that needs PostgreSQL fails when the variable is
// missing; it is skipped only when RAGCHAT_SKIP_POSTGRES=1 is set explicitly.
//
// Typical use:
//
//	for _, b := range testdb.Backends(t) {
//		t.Run(b.Name, func(t *testing.T) {
//			db := b.Open(t)
//			// ... run the same assertions on both backends ...
//		})
//	}
package testdb
