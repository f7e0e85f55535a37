package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync/atomic"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/lib/pq"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/store/stmtplan"
	"github.com/ragchat/ragchat/internal/testdb"
)

// wireCounts counts what database/sql asks of lib/pq's connections:
// statements prepared on a connection, executions of prepared statements
// and statements sent unprepared (each of which PostgreSQL parses and
// plans anew).
type wireCounts struct{ prepares, preparedRuns, unpreparedRuns atomic.Int64 }

func (w *wireCounts) snapshot() [3]int64 {
	return [3]int64{w.prepares.Load(), w.preparedRuns.Load(), w.unpreparedRuns.Load()}
}

// countingConnector wraps lib/pq's connector, counting into w.
type countingConnector struct {
	driver.Connector
	w *wireCounts
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: cn, w: c.w}, nil
}

// countingConn is a lib/pq connection that counts; it offers the
// interfaces of lib/pq's connection that database/sql uses.
type countingConn struct {
	driver.Conn
	w *wireCounts
}

func (c *countingConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	c.w.prepares.Add(1)
	s, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	return &countingStmt{Stmt: s, w: c.w}, nil
}

func (c *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.w.unpreparedRuns.Add(1)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c *countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.w.unpreparedRuns.Add(1)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c *countingConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.Conn.(driver.NamedValueChecker).CheckNamedValue(nv)
}

func (c *countingConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

// countingStmt is a prepared statement that counts its executions.
type countingStmt struct {
	driver.Stmt
	w *wireCounts
}

func (s *countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.w.preparedRuns.Add(1)
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s *countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.w.preparedRuns.Add(1)
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

// openCountingPostgres returns a preparing driver over a pool of at most
// conns connections on a fresh test database with the items table, and the
// counts of its connections.
func openCountingPostgres(t *testing.T, conns int) (countingDriver, *wireCounts) {
	t.Helper()
	connector, err := pq.NewConnector(testdb.PostgresURL(t))
	require.NoError(t, err)
	w := &wireCounts{}
	db := sql.OpenDB(countingConnector{Connector: connector, w: w})
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	_, err = db.Exec(`CREATE TABLE items (id int PRIMARY KEY, name text)`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 10) g`)
	require.NoError(t, err)
	d := newPreparingDriver(dialect.Postgres, db, &atomic.Uint64{})
	t.Cleanup(func() { _ = d.Close() })
	return d, w
}

// runItemsTx runs one transaction of Ent's shape: a query by id and an
// update, through the driver's dialect.Tx as Ent's builders send them.
func runItemsTx(t *testing.T, ctx context.Context, d countingDriver, id int) {
	t.Helper()
	tx, err := d.Tx(ctx)
	require.NoError(t, err)
	var rows entsql.Rows
	require.NoError(t, tx.Query(ctx, `SELECT name FROM items WHERE id = $1`, []any{id}, &rows))
	var name string
	require.True(t, rows.Next())
	require.NoError(t, rows.Scan(&name))
	require.NoError(t, rows.Close())
	var res sql.Result
	require.NoError(t, tx.Exec(ctx, `UPDATE items SET name = $1 WHERE id = $2`, []any{name, id}, &res))
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.NoError(t, tx.Commit())
}

// TestStmtCacheTransactionsReusePreparedStatements: the same transaction
// run again and again (a query and an update, as Ent sends them) goes
// unprepared while warming up; after that every execution in every later
// transaction runs a statement prepared earlier, and nothing is prepared
// again (counted on lib/pq's connections). With one connection, the
// background prepare and all transactions share it.
func TestStmtCacheTransactionsReusePreparedStatements(t *testing.T) {
	for _, conns := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d connections", conns), func(t *testing.T) {
			d, w := openCountingPostgres(t, conns)
			ctx := context.Background()
			for i := range prepareAfter {
				runItemsTx(t, ctx, d, i+1)
			}
			d.cache.pending.Wait() // the background prepares of the two texts
			require.Equal(t, 2, d.cache.stmts.Len())
			// One more transaction on each connection prepares the two
			// statements there once (database/sql's StmtContext); from then
			// on nothing is prepared and nothing is sent unprepared.
			for i := range conns {
				runItemsTx(t, ctx, d, i+1)
			}
			before := w.snapshot()
			const runs = 20
			for i := range runs {
				runItemsTx(t, ctx, d, i%10+1)
			}
			after := w.snapshot()
			require.Equal(t, [3]int64{0, 2 * runs, 0}, [3]int64{after[0] - before[0], after[1] - before[1], after[2] - before[2]},
				"prepares, prepared executions, unprepared executions over %d warm transactions", runs)
		})
	}
}

// TestStmtCacheTransactionPerExecutionIsNeverPrepared: in a transaction
// too, a statement sent with a context marked by stmtplan.PerExecution is
// never prepared.
func TestStmtCacheTransactionPerExecutionIsNeverPrepared(t *testing.T) {
	d, w := openCountingPostgres(t, 1)
	ctx := stmtplan.PerExecution(context.Background())
	for i := range prepareAfter + 3 {
		runItemsTx(t, ctx, d, i+1)
	}
	d.cache.pending.Wait()
	require.Zero(t, d.cache.stmts.Len())
	require.Zero(t, w.prepares.Load())
}

// TestStmtCacheTransactionSurvivesEviction: a transaction using a pooled
// statement that an eviction closes meanwhile still runs (database/sql
// prepares it on the transaction's connection for that transaction only).
func TestStmtCacheTransactionSurvivesEviction(t *testing.T) {
	d, _ := openCountingPostgres(t, 2)
	ctx := context.Background()
	for i := range prepareAfter {
		runItemsTx(t, ctx, d, i+1)
	}
	d.cache.pending.Wait()
	for _, s := range d.cache.stmts.Values() {
		require.NoError(t, s.Close()) // as an eviction would, with s still cached
	}
	runItemsTx(t, ctx, d, 4)
}

// TestStmtCacheCloseWaitsForBackgroundPrepares: closing the cache while a
// background prepare runs leaves no statement cached.
func TestStmtCacheCloseWaitsForBackgroundPrepares(t *testing.T) {
	d, _ := openCountingPostgres(t, 1)
	ctx := context.Background()
	for i := range prepareAfter {
		runItemsTx(t, ctx, d, i+1)
	}
	d.cache.close()
	require.Zero(t, d.cache.stmts.Len())
}
