package bench

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"
	"time"

	"entgo.io/ent/dialect"
)

// floorRuns is how many times the floor part runs each statement.
const floorRuns = 2000

// benchFloor measures what the database itself costs through the same
// driver (lib/pq or the SQLite driver) and a database/sql pool, so that the
// other parts' figures can be read as multiples of it (docs/BENCHMARKS.md,
// "The floor"): a trivial SELECT 1, one indexed single-row read, and one
// small write transaction (BEGIN, an upsert of one row, COMMIT).
func benchFloor(ctx context.Context, env *benchEnv, _ benchOptions, w io.Writer) error {
	db := env.db.SQL
	pg := env.db.Dialect == dialect.Postgres
	bind := func(q string) string {
		if pg {
			return q
		}
		return strings.NewReplacer("$1", "?", "$2", "?").Replace(q)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS bench_floor (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("floor table: %w", err)
	}
	conv, err := seedConversation(ctx, env.db, "floor", 2)
	if err != nil {
		return err
	}
	read := bind(`SELECT title, version FROM conversations WHERE id = $1`)
	upsert := bind(`INSERT INTO bench_floor (id, n) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET n = excluded.n`)
	steps := []struct {
		name string
		run  func(i int) error
	}{
		{"`SELECT 1`", func(int) error {
			var one int
			return db.QueryRowContext(ctx, `SELECT 1`).Scan(&one)
		}},
		{"indexed single-row read (conversation by primary key)", func(int) error {
			var title string
			var version int
			return db.QueryRowContext(ctx, read, conv).Scan(&title, &version)
		}},
		{"write transaction (BEGIN; upsert one row; COMMIT)", func(i int) error {
			return inTx(ctx, db, func(tx *sql.Tx) error {
				_, err := tx.ExecContext(ctx, upsert, i%64, i)
				return err
			})
		}},
	}
	fmt.Fprintf(w, "### The floor: the database through the same driver\n\n")
	fmt.Fprintf(w, "%d sequential runs of each statement through database/sql on one connection at a time, in the benchmark process, after 100 warm-up runs.\n\n", floorRuns)
	fmt.Fprintln(w, "| statement | mean | p50 | p99 | per second |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
	for k, s := range steps {
		for i := range 100 {
			if err := s.run(i); err != nil {
				return fmt.Errorf("floor %s: %w", s.name, err)
			}
		}
		ds := make([]time.Duration, 0, floorRuns)
		t0 := time.Now()
		for i := range floorRuns {
			t := time.Now()
			if err := s.run(i); err != nil {
				return fmt.Errorf("floor %s: %w", s.name, err)
			}
			ds = append(ds, time.Since(t))
		}
		total := time.Since(t0)
		mean := total / floorRuns
		switch k {
		case 0:
			env.results.selectOne = mean
		case 2:
			env.results.writeTx, env.results.floorOK = mean, true
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %.0f |\n", s.name, us(mean), us(pct(ds, 50)), us(pct(ds, 99)), float64(floorRuns)/total.Seconds())
	}
	fmt.Fprintln(w)
	return nil
}

// inTx runs f in a transaction, committing when it returns nil.
func inTx(ctx context.Context, db *sql.DB, f func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// us formats d in milliseconds with microsecond precision.
func us(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Nanoseconds())/1e6) }
