package testdb_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/testdb"
)

func openSQLite(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(testdb.SQLiteDriver, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, db.Close()) })
	return db
}

func TestSQLiteDSNPragmas(t *testing.T) {
	dsn := testdb.SQLiteDSN(t)
	db := openSQLite(t, dsn)
	// Every connection of the pool gets the pragmas, not only the first.
	db.SetMaxOpenConns(3)
	ctx := context.Background()
	conns := make([]*sql.Conn, 3)
	for i := range conns {
		c, err := db.Conn(ctx)
		require.NoError(t, err)
		conns[i] = c
	}
	for i, c := range conns {
		tests := []struct {
			pragma string
			want   string
		}{
			{"foreign_keys", "1"},
			{"busy_timeout", "10000"},
			{"journal_mode", "wal"},
		}
		for _, tt := range tests {
			var got string
			require.NoError(t, c.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&got))
			assert.Equal(t, tt.want, got, "connection %d: PRAGMA %s", i, tt.pragma)
		}
		require.NoError(t, c.Close())
	}

	path, _, _ := strings.Cut(dsn, "?")
	_, err := os.Stat(path)
	require.NoError(t, err, "the database file exists")
	assert.Equal(t, "ragchat.db", filepath.Base(path))
}

func TestSQLiteDSNIsUniquePerCall(t *testing.T) {
	assert.NotEqual(t, testdb.SQLiteDSN(t), testdb.SQLiteDSN(t))
}

func TestSQLiteDSNEnforcesForeignKeys(t *testing.T) {
	db := openSQLite(t, testdb.SQLiteDSN(t))
	_, err := db.Exec(`CREATE TABLE parent (id INTEGER PRIMARY KEY);
		CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parent(id))`)
	require.NoError(t, err)
	_, err = db.Exec("INSERT INTO child (id, parent_id) VALUES (1, 42)")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "FOREIGN KEY")
}

// TestSQLiteDSNBeginsImmediate proves _txlock=immediate: a transaction holds
// the write lock from BEGIN on, before it has run any statement, so a writer
// on another connection that does not wait (busy_timeout 0) is refused.
func TestSQLiteDSNBeginsImmediate(t *testing.T) {
	dsn := testdb.SQLiteDSN(t)
	db := openSQLite(t, dsn)
	_, err := db.Exec("CREATE TABLE kv (k TEXT PRIMARY KEY)")
	require.NoError(t, err)

	path, _, _ := strings.Cut(dsn, "?")
	other := openSQLite(t, path+"?_pragma=busy_timeout(0)")
	_, err = other.Exec("INSERT INTO kv VALUES ('before')")
	require.NoError(t, err, "without an open transaction the other writer succeeds")

	tx, err := db.Begin()
	require.NoError(t, err)
	_, err = other.Exec("INSERT INTO kv VALUES ('during')")
	require.Error(t, err, "BEGIN IMMEDIATE already holds the write lock")
	assert.Contains(t, strings.ToLower(err.Error()), "locked")
	require.NoError(t, tx.Rollback())

	_, err = other.Exec("INSERT INTO kv VALUES ('after')")
	require.NoError(t, err)
}
