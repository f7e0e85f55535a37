package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/testdb"
)

// TestSQLiteIndexStat: an index's modelled statistics give each prefix
// the rows of its most selective column so far, a unique index's whole key
// one row, and an unknown column sqliteDefaultRowsPerValue.
func TestSQLiteIndexStat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		columns []string
		unique  bool
		want    string
	}{
		{[]string{"id"}, true, "1000000 1"},
		{[]string{"tenant_id", "owner_id"}, false, "1000000 100000 1000"},
		{[]string{"conversation_id", "sequence_no"}, true, "1000000 50 1"},
		{[]string{"attempt_id", "rank"}, false, "1000000 5 5"},
		{[]string{"status", "lease_expires_at"}, false, "1000000 250000 10"},
		{[]string{"owner_id", "tenant_id"}, false, "1000000 1000 1000"},
	} {
		require.Equal(t, tc.want, sqliteIndexStat(tc.columns, tc.unique), "%v unique=%v", tc.columns, tc.unique)
	}
}

// TestSQLitePlannerStatsSeedOnlyWhatIsMissing: opening a SQLite database
// models the statistics of every index; an index's row that is there (an
// operator's ANALYZE) is never changed, and a missing one is modelled on
// the next open.
func TestSQLitePlannerStatsSeedOnlyWhatIsMissing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := testdb.SQLiteDSN(t)
	stat := func(db *DB, index string) string {
		t.Helper()
		var s string
		require.NoError(t, db.SQL.QueryRowContext(ctx, "SELECT stat FROM sqlite_stat1 WHERE idx = ?", index).Scan(&s))
		return s
	}
	db, err := OpenSQLiteDSN(ctx, dsn, true)
	require.NoError(t, err)
	require.Equal(t, "1000000 1", stat(db, "sqlite_autoindex_messages_1"))
	require.Equal(t, "1000000 100000 1000", stat(db, "message_tenant_id_owner_id"))
	require.Equal(t, "1000000 5 1", stat(db, "source_attempt_id_rank"))
	_, err = db.SQL.ExecContext(ctx, "UPDATE sqlite_stat1 SET stat = '7 7 7' WHERE idx = 'message_tenant_id_owner_id'")
	require.NoError(t, err)
	_, err = db.SQL.ExecContext(ctx, "DELETE FROM sqlite_stat1 WHERE idx = 'source_attempt_id_rank'")
	require.NoError(t, err)
	require.NoError(t, db.Close())

	db, err = OpenSQLiteDSN(ctx, dsn, true)
	require.NoError(t, err)
	defer db.Close()
	require.Equal(t, "7 7 7", stat(db, "message_tenant_id_owner_id"), "a row that is there stays")
	require.Equal(t, "1000000 5 1", stat(db, "source_attempt_id_rank"), "a missing row is modelled")
	n, err := seedSQLitePlannerStats(ctx, db.SQL)
	require.NoError(t, err)
	require.Zero(t, n, "nothing is missing")
}

// TestSQLitePlannerStatsTwoOpenersModelEachIndexOnce: two pools opening
// one file at once (a server and the benchmark harness do) leave one row
// per index, not one each.
func TestSQLitePlannerStatsTwoOpenersModelEachIndexOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := testdb.SQLiteDSN(t)
	db, err := OpenSQLiteDSN(ctx, dsn, true)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.SQL.ExecContext(ctx, "DELETE FROM sqlite_stat1")
	require.NoError(t, err)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			other, err := OpenSQLiteDSN(ctx, dsn, false)
			if err == nil {
				err = other.Close()
			}
			errs <- err
		}()
	}
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	var dup int
	require.NoError(t, db.SQL.QueryRowContext(ctx, "SELECT COUNT(*) FROM (SELECT idx FROM sqlite_stat1 GROUP BY tbl, idx HAVING COUNT(*) > 1)").Scan(&dup))
	require.Zero(t, dup, "an index modelled twice")
	var n int
	require.NoError(t, db.SQL.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_stat1 WHERE idx = 'sqlite_autoindex_messages_1'").Scan(&n))
	require.Equal(t, 1, n)
}
