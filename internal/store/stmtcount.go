package store

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// countingDriver counts the statements the Ent client sends (docs/ENGINE.md,
// "Statements per ask"): every Exec and Query, raw ExecContext and
// QueryContext, each BEGIN, COMMIT and ROLLBACK. It adds one atomic
// increment per statement (two when the statement's context carries a
// StatementTally), which is negligible beside a round trip to the
// database. Statements sent through DB.SQL directly (the summary lock, the
// instance identity lock, the PostgreSQL broker's own connection) are not
// counted.
type countingDriver struct {
	*entsql.Driver
	n *atomic.Uint64
	// tx begins transactions (on the pool itself: Driver's connection may
	// be a cachedPool, which entsql cannot begin on).
	tx *entsql.Driver
	// cache is the prepared-statement cache of Driver's connection, or nil.
	cache *stmtCache
}

// newCountingDriver wraps drv, counting into n.
func newCountingDriver(drv *entsql.Driver, n *atomic.Uint64) dialect.Driver {
	return countingDriver{Driver: drv, n: n, tx: drv}
}

// newPreparingDriver is newCountingDriver over pool whose often-sent
// statements outside transactions are prepared (stmtCache).
func newPreparingDriver(name string, pool *sql.DB, n *atomic.Uint64) countingDriver {
	cache := newStmtCache(pool)
	drv := entsql.NewDriver(name, entsql.Conn{ExecQuerier: cachedPool{DB: pool, cache: cache}})
	return countingDriver{Driver: drv, n: n, tx: entsql.OpenDB(name, pool), cache: cache}
}

// Close closes the prepared statements and the pool.
func (d countingDriver) Close() error {
	if d.cache != nil {
		d.cache.close()
	}
	return d.tx.Close()
}

// count records one statement sent with ctx.
func (d countingDriver) count(ctx context.Context) {
	d.n.Add(1)
	if t := tallyOf(ctx); t != nil {
		t.n.Add(1)
	}
}

// Exec implements dialect.Driver.
func (d countingDriver) Exec(ctx context.Context, q string, args, v any) error {
	d.count(ctx)
	return d.Driver.Exec(ctx, q, args, v)
}

// Query implements dialect.Driver.
func (d countingDriver) Query(ctx context.Context, q string, args, v any) error {
	d.count(ctx)
	if err := d.Driver.Query(ctx, q, args, v); err != nil {
		return err
	}
	describeColumnsOnce(ctx, v)
	return nil
}

// ExecContext runs a raw statement (the Ent client's ExecContext).
func (d countingDriver) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	d.count(ctx)
	return d.Driver.ExecContext(ctx, q, args...)
}

// QueryContext runs a raw query (the Ent client's QueryContext).
func (d countingDriver) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	d.count(ctx)
	return d.Driver.QueryContext(ctx, q, args...)
}

// Tx implements dialect.Driver.
func (d countingDriver) Tx(ctx context.Context) (dialect.Tx, error) { return d.BeginTx(ctx, nil) }

// BeginTx starts a transaction whose statements, commit and rollback are
// counted; BEGIN counts as one statement.
func (d countingDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	d.count(ctx)
	tx, err := d.begin(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &countingTx{Tx: tx, d: d, tally: tallyOf(ctx)}, nil
}

// begin starts an Ent transaction: on a preparing driver, one whose
// often-sent statements use the prepared ones (cachedTx).
func (d countingDriver) begin(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	if d.cache == nil {
		return d.tx.BeginTx(ctx, opts)
	}
	tx, err := d.cache.db.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &entsql.Tx{Conn: entsql.Conn{ExecQuerier: cachedTx{Tx: tx, cache: d.cache}}, Tx: tx}, nil
}

// countingTx is a transaction of countingDriver. COMMIT and ROLLBACK are
// counted on the tally of the context that began the transaction.
type countingTx struct {
	dialect.Tx
	d     countingDriver
	tally *StatementTally
}

// rawTx is what Ent's SQL transactions offer besides dialect.Tx.
type rawTx interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

func (t *countingTx) Exec(ctx context.Context, q string, args, v any) error {
	t.d.count(ctx)
	return t.Tx.Exec(ctx, q, args, v)
}

func (t *countingTx) Query(ctx context.Context, q string, args, v any) error {
	t.d.count(ctx)
	if err := t.Tx.Query(ctx, q, args, v); err != nil {
		return err
	}
	describeColumnsOnce(ctx, v)
	return nil
}

// ExecContext runs a raw statement in the transaction.
func (t *countingTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	raw, ok := t.Tx.(rawTx)
	if !ok {
		return nil, errors.New("store: the transaction does not support ExecContext")
	}
	t.d.count(ctx)
	return raw.ExecContext(ctx, q, args...)
}

// QueryContext runs a raw query in the transaction.
func (t *countingTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	raw, ok := t.Tx.(rawTx)
	if !ok {
		return nil, errors.New("store: the transaction does not support QueryContext")
	}
	t.d.count(ctx)
	return raw.QueryContext(ctx, q, args...)
}

// Commit counts COMMIT and commits.
func (t *countingTx) Commit() error {
	t.countEnd()
	return t.Tx.Commit()
}

// Rollback rolls back; it counts ROLLBACK only when one was sent (not after
// a commit, when database/sql answers ErrTxDone without a round trip).
func (t *countingTx) Rollback() error {
	err := t.Tx.Rollback()
	if !errors.Is(err, sql.ErrTxDone) {
		t.countEnd()
	}
	return err
}

func (t *countingTx) countEnd() {
	t.d.n.Add(1)
	if t.tally != nil {
		t.tally.n.Add(1)
	}
}

// Statements returns how many statements the Ent client of db has sent
// since it was opened (0 for a DB not opened by this package).
func (db *DB) Statements() uint64 {
	if db == nil || db.stmts == nil {
		return 0
	}
	return db.stmts.Load()
}

// StatementTally counts the statements sent with the contexts that carry it
// (WithStatementTally): the server counts one GraphQL operation's
// statements with it.
type StatementTally struct{ n atomic.Uint64 }

// Count returns the statements counted so far.
func (t *StatementTally) Count() uint64 { return t.n.Load() }

type tallyKey struct{}

// WithStatementTally returns ctx carrying a new tally: every statement the
// Ent client of an opened DB sends with ctx, or with a context derived from
// it, is also counted there.
func WithStatementTally(ctx context.Context) (context.Context, *StatementTally) {
	t := &StatementTally{}
	return context.WithValue(ctx, tallyKey{}, t), t
}

// WithoutStatementTally returns ctx without its tally: background work
// started by a request (an answer's run) counts apart from the request.
func WithoutStatementTally(ctx context.Context) context.Context {
	if tallyOf(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, tallyKey{}, (*StatementTally)(nil))
}

func tallyOf(ctx context.Context) *StatementTally {
	t, _ := ctx.Value(tallyKey{}).(*StatementTally)
	return t
}
