package convsearch_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/convsearch"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// TestBackfill: rows written before the index (the fixture's, with every
// entry removed) are found once Backfill has run, with the same hits as
// before on both backends; a second run writes nothing.
func TestBackfill(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		own := fixture(t, db.Client)
		want := hitIDs(t, as(alice), db.Client, convsearch.Request{Query: "vpn"}, false)
		require.Len(t, want, 2)
		titled := hitIDs(t, as(alice), db.Client, convsearch.Request{Query: "chat"}, false)
		require.Len(t, titled, len(own))

		var entries int
		require.NoError(t, db.SQL.QueryRow(`SELECT COUNT(*) FROM search_entries`).Scan(&entries))
		_, err := db.SQL.Exec(`DELETE FROM search_entries`)
		require.NoError(t, err)
		require.Empty(t, hitIDs(t, as(alice), db.Client, convsearch.Request{Query: "vpn"}, false), "no entries, no hits")

		n, err := convsearch.Backfill(t.Context(), db.Client, db.Dialect, 3)
		require.NoError(t, err)
		require.Equal(t, entries, n, "an entry per message and per titled conversation, in batches of 3")
		require.Equal(t, want, hitIDs(t, as(alice), db.Client, convsearch.Request{Query: "vpn"}, false))
		require.Equal(t, titled, hitIDs(t, as(alice), db.Client, convsearch.Request{Query: "chat"}, false))

		n, err = convsearch.Backfill(t.Context(), db.Client, db.Dialect, 3)
		require.NoError(t, err)
		require.Zero(t, n, "nothing left to write")
	})
}

// TestBackfillOnTwoReplicasAtOnce: two replicas starting together both
// run Backfill over the same rows; neither fails, and every message ends
// with exactly one entry (message_id is unique; the loser's rows are
// skipped).
func TestBackfillOnTwoReplicasAtOnce(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		fixture(t, db.Client)
		_, err := db.SQL.Exec(`DELETE FROM search_entries`)
		require.NoError(t, err)
		errs := make(chan error, 2)
		for range 2 {
			go func() {
				_, err := convsearch.Backfill(t.Context(), db.Client, db.Dialect, 2)
				errs <- err
			}()
		}
		require.NoError(t, <-errs)
		require.NoError(t, <-errs)
		var messages, entries int
		require.NoError(t, db.SQL.QueryRow(`SELECT COUNT(*) FROM messages`).Scan(&messages))
		require.NoError(t, db.SQL.QueryRow(`SELECT COUNT(*) FROM search_entries WHERE message_id IS NOT NULL`).Scan(&entries))
		require.Equal(t, messages, entries)
		require.Len(t, hitIDs(t, as(alice), db.Client, convsearch.Request{Query: "vpn"}, false), 2)
	})
}
