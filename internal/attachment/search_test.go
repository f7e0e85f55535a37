package attachment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/blobstore"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// fact is the distinctive text of the attachment the search tests upload.
const fact = "The Zorblax reactor in hangar nine runs on purple tourmaline crystals."

// TestSearchIsScopedToTheConversation uploads an attachment with a
// distinctive fact into alice's conversation A and searches for it: in A
// alice finds it, ranked first; in her conversation B, and for bob, an
// agent without a grant and another tenant's user, nothing comes back; a
// deleted conversation's chunks are gone.
func TestSearchIsScopedToTheConversation(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		blobs, err := blobstore.NewFS(t.TempDir())
		require.NoError(t, err)
		model := offline.New(offline.Options{})
		w := &world{db: db, blobs: blobs}
		w.svc, w.settled = newService(t, db, blobs, attachment.Options{Embedder: model})
		w.seed(t)
		a := w.upload(t, alice, w.a.ID, "notes.txt", []byte("Shopping list: apples and pears.\n\n"+fact+"\n"))
		require.Equal(t, "READY", a.Status.String())
		vecs, err := model.Embed(context.Background(), []string{"What does the Zorblax reactor run on?"})
		require.NoError(t, err)
		q := vecs[0]

		hits, err := w.svc.Search(as(alice), w.a.ID, q, 5)
		require.NoError(t, err)
		require.NotEmpty(t, hits)
		require.Equal(t, a.ID, hits[0].Attachment.ID)
		require.Equal(t, "notes.txt", hits[0].Attachment.Name)
		require.Contains(t, hits[0].Chunk.Content, "tourmaline")

		cases := []struct {
			name string
			v    *viewer.Viewer
			conv *ent.Conversation
		}{
			{"same user, other conversation", alice, w.b},
			{"other member", bob, w.a},
			{"agent without a grant", sam, w.a},
			{"other tenant", eve, w.a},
		}
		for _, c := range cases {
			hits, err := w.svc.Search(as(c.v), c.conv.ID, q, 5)
			require.NoError(t, err, c.name)
			require.Empty(t, hits, c.name)
		}

		require.NoError(t, db.Client.Conversation.DeleteOne(w.a).Exec(as(alice)))
		hits, err = w.svc.Search(as(alice), w.a.ID, q, 5)
		require.NoError(t, err)
		require.Empty(t, hits)
		n, err := db.Client.AttachmentChunk.Query().Count(viewer.SystemJobContext(context.Background(), viewer.JobPurge))
		require.NoError(t, err)
		require.Zero(t, n, "the chunks go with the conversation")
	})
}
