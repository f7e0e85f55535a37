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
	// prepareAfter is how often a text must be sent outside a
	// transaction before it is prepared: one-off texts (an IN list of a
	// new length) are never prepared.
	prepareAfter = 3
)

// stmtCache prepares the statements the Ent client sends often outside a
// transaction, so that PostgreSQL can keep their plans (after five
// executions it may switch a prepared statement to a generic plan, which
// skips planning; plan_cache_mode stays at its default, auto, so a generic
// plan is only used when it costs no more than the custom ones). database/sql
// prepares a statement on each pooled connection the first time it runs
// there and closes it everywhere when the statement is evicted.
//
// Statements inside transactions are sent unprepared: a transaction runs
// on one connection, where database/sql would prepare a pooled statement
// again for each transaction.
type stmtCache struct {
	db    *sql.DB
	mu    sync.Mutex
	seen  *lru.Cache[string, int]
	stmts *lru.Cache[string, *sql.Stmt]
}

// newStmtCache returns a cache preparing on db.
func newStmtCache(db *sql.DB) *stmtCache {
	seen, _ := lru.New[string, int](seenStatements)
	stmts, _ := lru.NewWithEvict[string, *sql.Stmt](preparedStatements, func(_ string, s *sql.Stmt) { _ = s.Close() })
	return &stmtCache{db: db, seen: seen, stmts: stmts}
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
	c.mu.Lock()
	n, _ := c.seen.Get(q)
	n++
	c.seen.Add(q, n)
	c.mu.Unlock()
	if n < prepareAfter {
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

// close closes every prepared statement.
func (c *stmtCache) close() { c.stmts.Purge() }

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
