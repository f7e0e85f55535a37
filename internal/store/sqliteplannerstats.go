package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SQLite plans a statement from sqlite_stat1, the statistics ANALYZE
// writes, and without it from fixed guesses that favour the index with
// the most equality terms. Every table of ragchat has a (tenant_id,
// owner_id) index for its privacy filters, so without statistics SQLite
// read the history window's messages and each of their sources through
// the owner's index (every message and every source of the user, per
// message) instead of by primary key and by attempt: 69 % of the server's
// CPU in a throughput run (docs/ENGINE.md, "Planner statistics").
//
// seedSQLitePlannerStats writes, for every index that has no row in
// sqlite_stat1, the statistics of a mature database modelled from the
// index's columns (sqliteRowsPerValue): how many rows a value of each
// prefix of the index matches. It never changes a row that is there, so
// an operator's ANALYZE wins. SQLite loads the rows when a connection
// reads the schema; ANALYZE sqlite_schema makes the open connections
// reload it.

// sqliteModelRows is the row count the modelled statistics give every
// table: only the ratios between an index's figures steer the planner.
const sqliteModelRows = 1_000_000

// sqliteRowsPerValue is how many rows one value of a column matches in
// the modelled database (tenants, users, conversations, answers and
// documents of a mature deployment); a column not named matches
// sqliteDefaultRowsPerValue, the last column of a unique index one.
var sqliteRowsPerValue = map[string]int{
	"tenant_id":         sqliteModelRows / 10,
	"owner_id":          1_000,
	"user_id":           1_000,
	"knowledge_base_id": 10_000,
	"conversation_id":   50,
	"document_id":       20,
	"attempt_id":        5,
	"message_id":        2,
	"status":            sqliteModelRows / 4,
	"kind":              sqliteModelRows / 4,
	"role":              sqliteModelRows / 4,
	"visibility":        sqliteModelRows / 4,
	"principal_kind":    sqliteModelRows / 4,
	"purpose":           sqliteModelRows / 4,
	"enabled":           sqliteModelRows / 2,
}

// sqliteDefaultRowsPerValue is the rows a value of any other column
// matches.
const sqliteDefaultRowsPerValue = 10

// sqliteIndexStat is the sqlite_stat1 "stat" of an index on columns:
// the row count, then the rows each prefix's value matches (never more
// than the shorter prefix's; 1 for a unique index's whole key).
func sqliteIndexStat(columns []string, unique bool) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(sqliteModelRows))
	prev := sqliteModelRows
	for i, c := range columns {
		n, ok := sqliteRowsPerValue[c]
		if !ok {
			n = sqliteDefaultRowsPerValue
		}
		n = min(n, prev)
		if unique && i == len(columns)-1 {
			n = 1
		}
		prev = n
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// seedSQLitePlannerStats writes the modelled statistics of every index
// that sqlite_stat1 lacks and returns how many it wrote.
func seedSQLitePlannerStats(ctx context.Context, pool *sql.DB) (int, error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	// ANALYZE of the schema table alone creates sqlite_stat1 if missing.
	if _, err := conn.ExecContext(ctx, "ANALYZE sqlite_schema"); err != nil {
		return 0, fmt.Errorf("store: SQLite statistics: %w", err)
	}
	type index struct {
		table, name string
		unique      bool
	}
	// What is missing is read in the writing transaction (which SQLite
	// takes for writing at BEGIN, _txlock=immediate), so that two
	// processes opening one file (a server and the benchmark harness) do
	// not both model the same index.
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	rows, err := tx.QueryContext(ctx, `SELECT m.name, il.name, il."unique" FROM sqlite_schema AS m, pragma_index_list(m.name) AS il
WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'
  AND NOT EXISTS (SELECT 1 FROM sqlite_stat1 s WHERE s.tbl = m.name AND s.idx = il.name)
ORDER BY m.name, il.name`)
	if err != nil {
		return 0, fmt.Errorf("store: SQLite statistics: %w", err)
	}
	var missing []index
	for rows.Next() {
		var ix index
		if err := rows.Scan(&ix.table, &ix.name, &ix.unique); err != nil {
			rows.Close()
			return 0, err
		}
		missing = append(missing, ix)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, err
	}
	if len(missing) == 0 {
		return 0, nil
	}
	for _, ix := range missing {
		cols, err := sqliteIndexColumns(ctx, tx, ix.name)
		if err != nil {
			return 0, err
		}
		if len(cols) == 0 { // an index on expressions only
			continue
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)", ix.table, ix.name, sqliteIndexStat(cols, ix.unique)); err != nil {
			return 0, fmt.Errorf("store: SQLite statistics of %s: %w", ix.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	// Reload the statistics on this connection and, through the schema
	// cookie, on every other.
	if _, err := conn.ExecContext(ctx, "ANALYZE sqlite_schema"); err != nil {
		return 0, fmt.Errorf("store: SQLite statistics: %w", err)
	}
	return len(missing), nil
}

// sqliteIndexColumns returns the names of the key columns of an index, in
// order ("" for an expression).
func sqliteIndexColumns(ctx context.Context, tx *sql.Tx, index string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, "SELECT name FROM pragma_index_info(?) ORDER BY seqno", index)
	if err != nil {
		return nil, err
	}
	var cols []string
	for rows.Next() {
		var name sql.NullString
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, err
		}
		cols = append(cols, name.String)
	}
	return cols, errors.Join(rows.Err(), rows.Close())
}
