package testdb

import (
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// SQLiteDriver is the database/sql driver name of modernc.org/sqlite.
const SQLiteDriver = "sqlite"

// SQLiteOptions are the modernc.org/sqlite DSN options every SQLite test
// database uses, matching what the application needs from SQLite:
//
//   - _pragma=foreign_keys(1): enforce foreign keys (off by default in
//     SQLite; Ent's SQLite driver refuses to run without them).
//   - _pragma=busy_timeout(10000): wait up to 10 s for a lock instead of
//     failing at once with SQLITE_BUSY when connections contend.
//   - _pragma=journal_mode(WAL): readers do not block the writer and the
//     writer does not block readers.
//   - _txlock=immediate: transactions start with BEGIN IMMEDIATE, taking the
//     write lock up front, so two read-then-write transactions cannot
//     deadlock on lock upgrade (which busy_timeout cannot resolve).
//
// The driver applies each _pragma on every new connection of the pool.
const SQLiteOptions = "_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"

// SQLiteDSN returns a modernc.org/sqlite DSN (driver name "sqlite") for a
// new database file in the test's temporary directory, which the testing
// package removes when the test ends. The DSN carries SQLiteOptions.
func SQLiteDSN(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "ragchat.db") + "?" + SQLiteOptions
}
