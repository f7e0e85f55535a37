package attachment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/viewer"
)

// TestDeletingTheConversationDeletesTheBytes: the hard delete that the
// retention purge and the temporary chat expiry run removes the
// conversation's attachment rows and their blobs, and nothing else.
func TestDeletingTheConversationDeletesTheBytes(t *testing.T) {
	forEach(t, nil, func(t *testing.T, w *world) {
		for _, name := range []string{"1.txt", "2.txt"} {
			_, err := w.svc.Upload(as(alice), w.a.ID, name, []byte("in A: "+name))
			require.NoError(t, err)
		}
		_, err := w.svc.Upload(as(alice), w.b.ID, "b.txt", []byte("in B"))
		require.NoError(t, err)
		require.Len(t, w.keys(t), 3)

		sys := viewer.SystemJobContext(context.Background(), viewer.JobPurge)
		require.NoError(t, w.db.Client.Conversation.DeleteOneID(w.a.ID).Exec(sys))
		keys := w.keys(t)
		require.Len(t, keys, 1)
		require.Contains(t, keys[0], w.b.ID.String())
		require.Equal(t, 1, w.rows(t))

		// In a transaction the bytes go at the commit.
		tx, err := w.db.Client.Tx(sys)
		require.NoError(t, err)
		require.NoError(t, tx.Conversation.DeleteOneID(w.b.ID).Exec(sys))
		require.Len(t, w.keys(t), 1, "not before the commit")
		require.NoError(t, tx.Commit())
		require.Empty(t, w.keys(t))
		require.Zero(t, w.rows(t))
	})
}
