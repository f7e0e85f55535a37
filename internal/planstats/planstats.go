// Package planstats keeps PostgreSQL's planner statistics current while
// ragchat's tables are young.
//
// PostgreSQL plans every statement from the statistics ANALYZE last took.
// On a new database, or one whose tables grow fast (a new deployment's
// first minutes, an import), those describe tables far smaller than the
// real ones: every equality looks like one row, the planner reads by
// whichever index looks cheapest, and a read that should take a primary
// key walks a whole conversation or a whole user's messages instead. A
// prepared statement's generic plan keeps that choice until the
// statistics change. Autovacuum analyses a table only after a tenth of it
// changed and checks once a minute, which leaves a young database planned
// blind for that minute on every table (docs/ENGINE.md, "Planner
// statistics"; docs/BENCHMARKS.md).
//
// A Keeper checks every few seconds which tables changed by more than
// half of what their statistics counted, and analyses those. A mature
// table needs millions of changes before that happens, so the Keeper only
// acts while tables are young and leaves the rest to autovacuum. ANALYZE
// invalidates the plans that depend on the table, prepared ones included.
// One replica analyses at a time (a transaction-scoped advisory lock);
// the others skip that round.
package planstats

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/lib/pq"

	"github.com/ragchat/ragchat/internal/periodic"
)

const (
	// Every is how often Run checks the tables.
	Every = 3 * time.Second
	// MinChanges is the least number of rows changed (inserted, updated
	// or deleted) since a table's last ANALYZE for the Keeper to analyse
	// it again.
	MinChanges = 200
	// Growth is the share of the rows the statistics counted that must
	// have changed since: 0.5 analyses a table at about 1.5× the size its
	// statistics describe (autovacuum's default is 0.1, checked once a
	// minute).
	Growth = 0.5
	// lockKey names the advisory lock that lets one replica analyse at a
	// time ("ragchat planstats").
	lockKey = 0x7261_6763_7374_6174
	// statementTimeout bounds one round's ANALYZE statements.
	statementTimeout = 30 * time.Second
)

// youngTables names the ordinary tables of the current schema whose
// changes since their last ANALYZE exceed $1 rows and $2 of the rows their
// statistics counted (reltuples is -1 for a table never analysed).
const youngTables = `SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
WHERE s.schemaname = current_schema() AND c.relkind = 'r'
  AND s.n_mod_since_analyze >= $1 AND s.n_mod_since_analyze >= c.reltuples * $2
ORDER BY s.relname`

// Keeper analyses young tables of one PostgreSQL database.
type Keeper struct {
	db  *sql.DB
	log *slog.Logger
}

// New returns a Keeper of db, which must be a PostgreSQL pool whose user
// owns the tables (ragchat's, which migrates them); log may be nil.
func New(db *sql.DB, log *slog.Logger) *Keeper {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Keeper{db: db, log: log}
}

// Run calls Tick every interval until ctx is done. Failures are logged
// and the next round tries again.
func (k *Keeper) Run(ctx context.Context, interval time.Duration) {
	periodic.Every(ctx.Done(), interval, func() bool {
		if tables, err := k.Tick(ctx); err != nil && ctx.Err() == nil {
			k.log.WarnContext(ctx, "planner statistics not refreshed", "tables", tables, "err", err)
		} else if len(tables) > 0 {
			k.log.DebugContext(ctx, "planner statistics refreshed", "tables", tables)
		}
		return true
	})
}

// Tick analyses the tables that are young now, in one transaction under
// the Keeper's advisory lock, and returns their names. It returns no names
// and no error when another replica holds the lock.
func (k *Keeper) Tick(ctx context.Context) (tables []string, err error) {
	tx, err := k.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
			return
		}
		err = tx.Commit()
	}()
	var locked bool
	if err := tx.QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock($1)", int64(lockKey)).Scan(&locked); err != nil {
		return nil, err
	}
	if !locked {
		return nil, nil
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", statementTimeout.Milliseconds())); err != nil {
		return nil, err
	}
	tables, err = young(ctx, tx)
	if err != nil || len(tables) == 0 {
		return nil, err
	}
	for _, t := range tables {
		if _, err := tx.ExecContext(ctx, "ANALYZE "+pq.QuoteIdentifier(t)); err != nil {
			return tables, fmt.Errorf("analyze %s: %w", t, err)
		}
	}
	return tables, nil
}

// young returns the names youngTables selects.
func young(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx, youngTables, MinChanges, Growth)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, errors.Join(rows.Err(), rows.Close())
}
