package store

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/lib/pq"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/store/stmtplan"

	"github.com/ragchat/ragchat/internal/testdb"
)

// openRawPostgres returns a pool on a fresh test database with one table.
func openRawPostgres(t *testing.T) *sql.DB {
	t.Helper()
	connector, err := pq.NewConnector(testdb.PostgresURL(t))
	require.NoError(t, err)
	db := sql.OpenDB(connector)
	t.Cleanup(func() { _ = db.Close() })
	_, err = db.Exec(`CREATE TABLE items (id int PRIMARY KEY, name text)`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 10) g`)
	require.NoError(t, err)
	return db
}

// preparedOnConnection reports whether the session db's single connection
// holds a prepared statement with text q.
func preparedOnConnection(t *testing.T, db *sql.DB, q string) bool {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM pg_prepared_statements WHERE statement = $1`, q).Scan(&n))
	return n > 0
}

// TestStmtCachePreparesOftenSentStatements: a text is sent unprepared
// until it has been seen prepareAfter times, then prepared (PostgreSQL's
// pg_prepared_statements on the pool's one connection shows it) and every
// answer is the same as unprepared; one-off texts are never prepared.
func TestStmtCachePreparesOftenSentStatements(t *testing.T) {
	db := openRawPostgres(t)
	db.SetMaxOpenConns(1) // one session, so pg_prepared_statements sees it
	pool := cachedPool{DB: db, cache: newStmtCache(db)}
	ctx := context.Background()
	const q = `SELECT name FROM items WHERE id = $1`
	for i := 1; i <= prepareAfter+3; i++ {
		var name string
		rows, err := pool.QueryContext(ctx, q, i)
		require.NoError(t, err)
		require.True(t, rows.Next())
		require.NoError(t, rows.Scan(&name))
		require.NoError(t, rows.Close())
		require.Equal(t, fmt.Sprintf("item %d", i), name)
		_, cached := pool.cache.stmts.Peek(q)
		require.Equal(t, i >= prepareAfter, cached, "send %d", i)
		require.Equal(t, i >= prepareAfter, preparedOnConnection(t, db, q), "send %d", i)
	}
	res, err := pool.ExecContext(ctx, `UPDATE items SET name = name WHERE id = $1`, 1)
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.False(t, pool.cache.stmts.Contains(`UPDATE items SET name = name WHERE id = $1`), "sent once: not prepared")

	pool.cache.close()
	require.Zero(t, pool.cache.stmts.Len())
	require.False(t, preparedOnConnection(t, db, q), "closing the cache deallocates")
}

// TestStmtCachePerExecutionIsNeverPrepared: a statement sent with a
// context marked by stmtplan.PerExecution is never prepared, however often
// it is sent, so PostgreSQL plans it with its values every time; the same
// text sent unmarked is prepared as usual.
func TestStmtCachePerExecutionIsNeverPrepared(t *testing.T) {
	db := openRawPostgres(t)
	db.SetMaxOpenConns(1)
	pool := cachedPool{DB: db, cache: newStmtCache(db)}
	const q = `SELECT name FROM items WHERE id = $1`
	for _, tc := range []struct {
		ctx      context.Context
		prepared bool
	}{
		{stmtplan.PerExecution(context.Background()), false},
		{context.Background(), true},
	} {
		for i := 1; i <= prepareAfter+3; i++ {
			rows, err := pool.QueryContext(tc.ctx, q, i)
			require.NoError(t, err)
			require.True(t, rows.Next())
			require.NoError(t, rows.Close())
		}
		require.Equal(t, tc.prepared, pool.cache.stmts.Contains(q))
		require.Equal(t, tc.prepared, preparedOnConnection(t, db, q))
	}
}

// TestStmtCacheClosedStatementFallsBack: a statement closed by an eviction
// while a caller still holds it is sent unprepared instead of failing.
func TestStmtCacheClosedStatementFallsBack(t *testing.T) {
	db := openRawPostgres(t)
	cache := newStmtCache(db)
	pool := cachedPool{DB: db, cache: cache}
	ctx := context.Background()
	const q = `SELECT count(*) FROM items WHERE id <= $1`
	for range prepareAfter {
		_, err := pool.QueryContext(ctx, q, 3)
		require.NoError(t, err)
	}
	s, ok := cache.stmts.Peek(q)
	require.True(t, ok)
	require.NoError(t, s.Close()) // as an eviction would, with s still cached
	var n int
	rows, err := pool.QueryContext(ctx, q, 3)
	require.NoError(t, err)
	require.True(t, rows.Next())
	require.NoError(t, rows.Scan(&n))
	require.NoError(t, rows.Close())
	require.Equal(t, 3, n)
	_, err = pool.ExecContext(ctx, `UPDATE items SET name = name WHERE id <= $1`, 3)
	require.NoError(t, err)
}

// TestStmtCacheIsBounded: at most preparedStatements statements stay
// prepared; the least recently used are closed.
func TestStmtCacheIsBounded(t *testing.T) {
	db := openRawPostgres(t)
	cache := newStmtCache(db)
	pool := cachedPool{DB: db, cache: cache}
	ctx := context.Background()
	for i := range preparedStatements + 10 {
		q := fmt.Sprintf(`SELECT %d FROM items WHERE id = $1`, i)
		for range prepareAfter {
			rows, err := pool.QueryContext(ctx, q, 1)
			require.NoError(t, err)
			require.NoError(t, rows.Close())
		}
	}
	require.Equal(t, preparedStatements, cache.stmts.Len())
	require.False(t, cache.stmts.Contains(`SELECT 0 FROM items WHERE id = $1`), "the oldest was evicted")
}
