package store

import (
	"context"
	"database/sql"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ragchat/ragchat/internal/store/stmtplan"
)

// Sizes of the prepared-statement cache (docs/BENCHMARKS.md, "Targets":
// PostgreSQL plans an unnamed statement on every execution, and the
// privacy-scoped statements of an answer take longer to plan than to
// run).
const (
	// preparedStatements bounds the statements kept prepared; an evicted
	// statement is closed (deallocated on every connection).
	preparedStatements = 256
	// seenStatements bounds the statement texts remembered until they
	// are sent often enough to be prepared.
	seenStatements = 2048
	// prepareAfter is how often a text must be sent (in a transaction
	// or not) before it is prepared: one-off texts (an IN list of a new
	// length) are never prepared.
	prepareAfter = 3
)

// stmtCache prepares the statements the Ent client sends often, in a
// transaction or not, so that PostgreSQL can keep their plans (after five
// executions it may switch a prepared statement to a generic plan, which
// skips planning; plan_cache_mode stays at its default, auto, so a generic
// plan is only used when it costs no more than the custom ones). database/sql
// prepares a statement on each pooled connection the first time it runs
// there and closes it everywhere when the statement is evicted.
//
// A transaction runs on one connection: its statements use the pooled
// statement through sql.Tx.StmtContext (cachedTx), which reuses the
// statement already prepared on that connection and prepares it there
// once otherwise, so after warm-up a transaction's statements skip both
// parsing and (with a generic plan) planning too. A text first reaching
// prepareAfter inside a transaction is prepared on the pool in the
// background (prepareLater): preparing needs a connection of its own, and
// the transaction already holds one, so waiting for a second could
// deadlock a full pool.
type stmtCache struct {
	db    *sql.DB
	mu    sync.Mutex
	seen  *lru.Cache[string, int]
	stmts *lru.Cache[string, *sql.Stmt]
	// preparing holds the texts being prepared in the background; it is
	// at most seenStatements long, since only seen texts enter it.
	preparing map[string]struct{}
	// pending counts the background prepares in flight (tests wait on it).
	pending sync.WaitGroup
	// closed is set by close: a background prepare finishing later closes
	// its statement instead of caching it.
	closed bool
	// stop cancels the background prepares still waiting for a
	// connection (close must not wait for a transaction that never ends).
	stopCtx context.Context
	stop    context.CancelFunc
}

// newStmtCache returns a cache preparing on db.
func newStmtCache(db *sql.DB) *stmtCache {
	seen, _ := lru.New[string, int](seenStatements)
	stmts, _ := lru.NewWithEvict[string, *sql.Stmt](preparedStatements, func(_ string, s *sql.Stmt) { _ = s.Close() })
	stopCtx, stop := context.WithCancel(context.Background())
	return &stmtCache{db: db, seen: seen, stmts: stmts, preparing: map[string]struct{}{}, stopCtx: stopCtx, stop: stop}
}

// prepared returns q's prepared statement, preparing it once q has been
// sent prepareAfter times; nil means "send q unprepared", which it always
// is with a context marked by stmtplan.PerExecution.
func (c *stmtCache) prepared(ctx context.Context, q string) *sql.Stmt {
	if stmtplan.IsPerExecution(ctx) {
		return nil
	}
	if s, ok := c.stmts.Get(q); ok {
		return s
	}
	if !c.due(q) {
		return nil
	}
	s, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	if prev, ok, _ := c.stmts.PeekOrAdd(q, s); ok {
		// Another caller prepared it meanwhile.
		_ = s.Close()
		return prev
	}
	c.seen.Remove(q)
	return s
}

// due counts one more send of q and reports whether q has now been sent
// prepareAfter times.
func (c *stmtCache) due(q string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, _ := c.seen.Get(q)
	n++
	c.seen.Add(q, n)
	return n >= prepareAfter
}

// preparedInTx is prepared for a statement sent inside a transaction: it
// returns q's pooled statement if there is one, and otherwise never waits
// for a connection. When q becomes due, it is prepared in the background
// for the next sends; this one goes unprepared.
func (c *stmtCache) preparedInTx(ctx context.Context, q string) *sql.Stmt {
	if stmtplan.IsPerExecution(ctx) {
		return nil
	}
	if s, ok := c.stmts.Get(q); ok {
		return s
	}
	if c.due(q) {
		c.prepareLater(q)
	}
	return nil
}

// prepareLater prepares q on the pool in a goroutine, once at a time per
// text.
func (c *stmtCache) prepareLater(q string) {
	c.mu.Lock()
	if _, busy := c.preparing[q]; busy || c.closed {
		c.mu.Unlock()
		return
	}
	c.preparing[q] = struct{}{}
	c.pending.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.pending.Done()
		s, err := c.db.PrepareContext(c.stopCtx, q)
		c.mu.Lock()
		delete(c.preparing, q)
		closed := c.closed
		c.mu.Unlock()
		if err != nil {
			return
		}
		if closed {
			_ = s.Close()
			return
		}
		if _, ok, _ := c.stmts.PeekOrAdd(q, s); ok {
			_ = s.Close()
			return
		}
		c.seen.Remove(q)
	}()
}

// close closes every prepared statement, after cancelling the background
// prepares.
func (c *stmtCache) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.stop()
	c.pending.Wait()
	c.stmts.Purge()
}

// errStmtClosed is what database/sql answers for a statement closed by an
// eviction while a caller still held it; the caller then sends its text
// unprepared.
const errStmtClosed = "sql: statement is closed"

// cachedPool is the pool as Ent's connection outside transactions, with
// the often-sent statements prepared.
type cachedPool struct {
	*sql.DB
	cache *stmtCache
}

// ExecContext runs q, prepared when it is sent often.
func (p cachedPool) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if s := p.cache.prepared(ctx, q); s != nil {
		res, err := s.ExecContext(ctx, args...)
		if err == nil || err.Error() != errStmtClosed {
			return res, err
		}
	}
	return p.DB.ExecContext(ctx, q, args...)
}

// QueryContext runs q, prepared when it is sent often.
func (p cachedPool) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if s := p.cache.prepared(ctx, q); s != nil {
		rows, err := s.QueryContext(ctx, args...)
		if err == nil || err.Error() != errStmtClosed {
			return rows, err
		}
	}
	return p.DB.QueryContext(ctx, q, args...)
}

// cachedTx is a transaction as Ent's connection: the often-sent
// statements run as the pooled prepared statements, bound to the
// transaction's connection with StmtContext (prepared there once per
// connection, then reused by every later transaction on it).
type cachedTx struct {
	*sql.Tx
	cache *stmtCache
}

// ExecContext runs q in the transaction, prepared when it is sent often.
func (t cachedTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if s := t.cache.preparedInTx(ctx, q); s != nil {
		return t.Tx.StmtContext(ctx, s).ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, q, args...)
}

// QueryContext runs q in the transaction, prepared when it is sent often.
func (t cachedTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if s := t.cache.preparedInTx(ctx, q); s != nil {
		return t.Tx.StmtContext(ctx, s).QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, q, args...)
}
