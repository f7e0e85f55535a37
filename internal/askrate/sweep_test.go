package askrate_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// TestSweepIdle: a sweep deletes at most its limit of the full buckets of
// one tenant part, and never a bucket that is not full or one of another
// tenant part; a swept key meters as before. Both backends.
func TestSweepIdle(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		l := askrate.NewDBLimiter(db, nil)
		ctx := context.Background()
		fast := askrate.Rate{PerMinute: 600000, Burst: 1} // full again 0.1 ms after a take
		slow := askrate.Rate{PerMinute: 0.01, Burst: 1}   // never refilled during the test
		for i := range 5 {
			_, err := l.Take(ctx, askrate.Key("share", fmt.Sprint("addr:10.0.0.", i)), fast)
			require.NoError(t, err)
		}
		_, err := l.Take(ctx, askrate.Key("share", "addr:busy"), slow)
		require.NoError(t, err)
		_, err = l.Take(ctx, askrate.Key("demo", "alice"), fast)
		require.NoError(t, err)
		rows := func(tenant string) int {
			var n int
			require.NoError(t, db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM ask_rates WHERE tenant_id = '`+tenant+`'`).Scan(&n))
			return n
		}
		require.Equal(t, 6, rows("share"))
		time.Sleep(10 * time.Millisecond) // the fast buckets fill again

		n, err := l.SweepIdle(ctx, "share", 2)
		require.NoError(t, err)
		require.Equal(t, 2, n, "at most the limit")
		n, err = l.SweepIdle(ctx, "share", 100)
		require.NoError(t, err)
		require.Equal(t, 3, n, "the rest of the full ones")
		n, err = l.SweepIdle(ctx, "share", 100)
		require.NoError(t, err)
		require.Zero(t, n)
		require.Equal(t, 1, rows("share"), "the bucket that is not full stays")
		require.Equal(t, 1, rows("demo"), "another tenant part is not swept")

		wait, err := l.Take(ctx, askrate.Key("share", "addr:busy"), slow)
		require.NoError(t, err)
		require.Positive(t, wait, "the kept bucket still refuses")
		wait, err = l.Take(ctx, askrate.Key("share", "addr:10.0.0.0"), slow)
		require.NoError(t, err)
		require.Zero(t, wait, "a swept key starts full, as it was")
	})
}
