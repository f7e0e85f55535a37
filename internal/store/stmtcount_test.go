package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestStatementCounter: the Ent client of an opened database counts every
// statement it sends (docs/BENCHMARKS.md, "Statements per ask, on the
// running server"): queries, raw statements, BEGIN, COMMIT and an actual
// ROLLBACK, but not a rollback after the commit, which sends nothing. A
// context's tally counts the same statements, and a context without the
// tally (an answer's background run) adds to the total only.
func TestStatementCounter(t *testing.T) {
	tests := []struct {
		name  string
		run   func(ctx context.Context, db *store.DB) error
		total uint64
	}{
		{"a query", func(ctx context.Context, db *store.DB) error {
			_, err := db.Client.Tenant.Query().Count(ctx)
			return err
		}, 1},
		{"a raw statement", func(ctx context.Context, db *store.DB) error {
			_, err := db.Client.ExecContext(ctx, "SELECT 1")
			return err
		}, 1},
		{"a committed transaction of two statements", func(ctx context.Context, db *store.DB) error {
			tx, err := db.Client.Tx(ctx)
			if err != nil {
				return err
			}
			if _, err := tx.Tenant.Query().Count(ctx); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, "SELECT 1"); err != nil {
				return err
			}
			if err := tx.Commit(); err != nil {
				return err
			}
			_ = tx.Rollback() // after the commit: nothing is sent
			return nil
		}, 4},
		{"a rolled back transaction", func(ctx context.Context, db *store.DB) error {
			tx, err := db.Client.Tx(ctx)
			if err != nil {
				return err
			}
			if _, err := tx.Tenant.Query().Count(ctx); err != nil {
				return err
			}
			return tx.Rollback()
		}, 3},
	}
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		sys := viewer.SystemJobContext(t.Context(), viewer.JobProvision)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ctx, tally := store.WithStatementTally(sys)
				before := db.Statements()
				require.NoError(t, tt.run(ctx, db))
				require.Equal(t, tt.total, db.Statements()-before, "total")
				require.Equal(t, tt.total, tally.Count(), "tally")

				detached := store.WithoutStatementTally(ctx)
				before = db.Statements()
				require.NoError(t, tt.run(detached, db))
				require.Equal(t, tt.total, db.Statements()-before, "total, without the tally")
				require.Equal(t, tt.total, tally.Count(), "the tally counts nothing without it")
			})
		}
	})
}

// TestStatementCounterOnlyOnOpenedDatabases: a DB built by hand (tests
// wrap their own drivers) reports no statements rather than failing.
func TestStatementCounterOnlyOnOpenedDatabases(t *testing.T) {
	db := &store.DB{Client: ent.NewClient()}
	require.Zero(t, db.Statements())
	var nilDB *store.DB
	require.Zero(t, nilDB.Statements())
}
