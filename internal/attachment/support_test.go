package attachment_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/blobstore"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/support"
)

// TestSupportAgentReadsOnlyUnderAGrant: a support agent reads a
// conversation's attachments (Get, List, Content, Search) only while an
// APPROVED grant for that conversation is active, exactly as its messages;
// without a grant, with a pending one and after the revoke every read is
// NOT_FOUND (the error of an unknown id) or empty; an upload into the
// conversation is NOT_FOUND even under the grant (grants never write).
func TestSupportAgentReadsOnlyUnderAGrant(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		blobs, err := blobstore.NewFS(t.TempDir())
		require.NoError(t, err)
		model := offline.New(offline.Options{})
		w := &world{db: db, blobs: blobs}
		w.svc, w.settled = newService(t, db, blobs, attachment.Options{Embedder: model})
		w.seed(t)
		body := []byte("Shopping list: apples and pears.\n\n" + fact + "\n")
		a := w.upload(t, alice, w.a.ID, "notes.txt", body)
		vecs, err := model.Embed(context.Background(), []string{"What does the Zorblax reactor run on?"})
		require.NoError(t, err)
		_, unknown := w.svc.Get(as(sam), uuid.Must(uuid.NewV7()))
		require.Equal(t, domain.CodeNotFound, code(unknown))

		hidden := func(stage string) {
			t.Helper()
			_, err := w.svc.Get(as(sam), a.ID)
			require.Equal(t, unknown.Error(), errString(err), stage)
			_, err = w.svc.Content(as(sam), a.ID)
			require.Equal(t, unknown.Error(), errString(err), stage)
			list, err := w.svc.List(as(sam), w.a.ID)
			require.NoError(t, err)
			require.Empty(t, list, stage)
			hits, err := w.svc.Search(as(sam), w.a.ID, vecs[0], 5)
			require.NoError(t, err)
			require.Empty(t, hits, stage)
		}
		hidden("without a grant")

		grants := support.New(db.Client, support.Options{})
		g, err := grants.Request(as(sam), support.RequestInput{ConversationID: w.a.ID, Reason: "ticket 42"})
		require.NoError(t, err)
		hidden("with a pending grant")

		_, err = grants.Approve(as(alice), g.ID)
		require.NoError(t, err)
		got, err := w.svc.Get(as(sam), a.ID)
		require.NoError(t, err)
		require.Equal(t, "notes.txt", got.Name)
		b, err := w.svc.Content(as(sam), a.ID)
		require.NoError(t, err)
		require.Equal(t, body, b)
		list, err := w.svc.List(as(sam), w.a.ID)
		require.NoError(t, err)
		require.Len(t, list, 1)
		hits, err := w.svc.Search(as(sam), w.a.ID, vecs[0], 5)
		require.NoError(t, err)
		require.NotEmpty(t, hits)
		require.Equal(t, a.ID, hits[0].Attachment.ID)
		list, err = w.svc.List(as(sam), w.b.ID)
		require.NoError(t, err)
		require.Empty(t, list, "the grant opens its one conversation only")
		_, err = w.svc.Upload(as(sam), w.a.ID, "agent.txt", []byte("x"))
		require.Equal(t, domain.CodeNotFound, code(err), "a grant never writes")
		_, unknownConv := w.svc.Upload(as(sam), uuid.Must(uuid.NewV7()), "agent.txt", []byte("x"))
		require.Equal(t, errString(unknownConv), errString(err))

		_, err = grants.Revoke(as(alice), g.ID)
		require.NoError(t, err)
		hidden("after the revoke")
		require.Equal(t, 1, w.rows(t))
	})
}
