package attachment_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/attachment"
)

// TestSweepOrphans: the sweep deletes only blobs that no row names and
// whose id is older than the grace; a live attachment's blob, a fresh
// orphan (an upload in flight) and a key that is not the engine's stay.
func TestSweepOrphans(t *testing.T) {
	forEach(t, nil, func(t *testing.T, w *world) {
		ctx := context.Background()
		live, err := w.svc.Upload(as(alice), w.a.ID, "live.txt", []byte("live"))
		require.NoError(t, err)
		orphan := attachment.KeyPrefix + "demo/" + w.a.ID.String() + "/" + uuid.Must(uuid.NewV7()).String()
		foreign := attachment.KeyPrefix + "demo/" + w.a.ID.String() + "/" + uuid.NewString()
		for _, k := range []string{orphan, foreign} {
			require.NoError(t, w.blobs.Put(ctx, k, strings.NewReader("x")))
		}

		n, err := w.svc.SweepOrphans(ctx, time.Now())
		require.NoError(t, err)
		require.Zero(t, n, "within the grace nothing goes")
		require.Len(t, w.keys(t), 3)

		n, err = w.svc.SweepOrphans(ctx, time.Now().Add(attachment.SweepGrace+time.Minute))
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.ElementsMatch(t, []string{live.BlobKey, foreign}, w.keys(t))
	})
}
