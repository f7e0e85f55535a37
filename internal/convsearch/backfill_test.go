package convsearch_test

import (
	"context"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/message"
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

// TestBackfillBesideAWriteOutsideATransaction: a message written outside a
// transaction commits before its entry, so the backfill of a replica
// starting meanwhile may write the entry first; the write still succeeds
// and the message has one entry.
func TestBackfillBesideAWriteOutsideATransaction(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		own := fixture(t, db.Client)
		backfilled := 0
		// Registered after the index's hook, so it runs inside it: after the
		// message's INSERT, before the index writes its entry.
		db.Client.Message.Use(func(next ent.Mutator) ent.Mutator {
			return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
				v, err := next.Mutate(ctx, m)
				if err == nil {
					backfilled, err = convsearch.Backfill(t.Context(), db.Client, db.Dialect, 10)
				}
				return v, err
			})
		})
		msg, err := db.Client.Message.Create().SetConversationID(own[0]).SetOwnerID(alice.UserID).SetSequenceNo(2).
			SetRole(message.RoleUSER).SetContent("raced question about the printer").Save(as(alice))
		require.NoError(t, err)
		require.Equal(t, 1, backfilled, "the backfill wrote the new message's entry first")
		var entries int
		require.NoError(t, db.SQL.QueryRow(`SELECT COUNT(*) FROM search_entries WHERE message_id = `+placeholder(db), msg.ID).Scan(&entries))
		require.Equal(t, 1, entries)
		require.Contains(t, hitIDs(t, as(alice), db.Client, convsearch.Request{Query: "printer"}, false), own[0])
	})
}

// placeholder is the first bind parameter in db's dialect.
func placeholder(db *store.DB) string {
	if db.Dialect == dialect.Postgres {
		return "$1"
	}
	return "?"
}
