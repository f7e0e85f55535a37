package chat_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	entattachment "github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/blobstore"
	"github.com/ragchat/ragchat/internal/blobstore/blobstoretest"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestPurgeDeletesAttachmentBytes follows attachments through the real
// background jobs, on both backends and with the filesystem and the S3
// blob store: a soft-deleted conversation keeps its bytes while it can be
// restored and loses rows and bytes at the retention purge; an expired
// temporary chat loses them at the next purge; a blob whose row is gone
// without its blob delete (a crash after the commit) is swept by the purge
// once it is older than attachment.SweepGrace; the bytes of a live
// conversation stay.
func TestPurgeDeletesAttachmentBytes(t *testing.T) {
	stores := []struct {
		name string
		open func(t *testing.T) blobstore.Store
	}{
		{"fs", func(t *testing.T) blobstore.Store {
			s, err := blobstore.NewFS(t.TempDir())
			require.NoError(t, err)
			return s
		}},
		{"s3", func(t *testing.T) blobstore.Store { return blobstoretest.FakeS3(t) }},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			forEach(t, func(t *testing.T, e *env) {
				blobs := st.open(t)
				svc := attachment.New(e.db.Client, blobs, attachment.Options{})
				e.eng.AddPurgeJob(svc.SweepOrphans)
				sys := viewer.SystemJobContext(context.Background(), viewer.JobPurge)
				upload := func(conv uuid.UUID, name string) string {
					t.Helper()
					a, err := svc.Upload(as(alice), conv, name, []byte("the bytes of "+name))
					require.NoError(t, err)
					return a.BlobKey
				}
				// present reports which of keys the blob store holds.
				present := func(keys ...string) []string {
					t.Helper()
					all, err := blobs.Keys(context.Background(), attachment.KeyPrefix)
					require.NoError(t, err)
					var got []string
					for _, k := range keys {
						for _, a := range all {
							if a == k {
								got = append(got, k)
							}
						}
					}
					return got
				}
				rows := func(conv uuid.UUID) int {
					t.Helper()
					return e.db.Client.Attachment.Query().Where(entattachment.ConversationID(conv)).CountX(sys)
				}
				purge := func() {
					t.Helper()
					_, err := e.eng.PurgeOnce(context.Background())
					require.NoError(t, err)
				}

				keep := e.conversation(t, alice)
				kept := upload(keep.ID, "keep.txt")
				deleted := e.conversation(t, alice)
				gone := []string{upload(deleted.ID, "1.txt"), upload(deleted.ID, "2.md")}
				temp := e.temporary(t, alice)
				tempKey := upload(temp.ID, "temp.txt")
				crashed := upload(keep.ID, "crash.txt")
				_, err := e.eng.DeleteConversation(as(alice), deleted.ID, "")
				require.NoError(t, err)
				// A crash between the commit that removed a row and its
				// blob delete leaves the blob behind.
				_, err = e.db.Client.Attachment.Delete().Where(entattachment.BlobKey(crashed)).Exec(sys)
				require.NoError(t, err)

				purge()
				require.Len(t, present(gone...), 2, "a DELETED conversation keeps its bytes while it can be restored")
				require.Equal(t, 2, rows(deleted.ID))
				require.Equal(t, []string{tempKey}, present(tempKey), "a live temporary chat keeps its bytes")
				require.Equal(t, []string{crashed}, present(crashed), "an orphan younger than the grace stays")

				e.expire(t, temp.ID)
				purge()
				require.Empty(t, present(tempKey), "an expired temporary chat's bytes go with it")
				require.Zero(t, rows(temp.ID))
				require.Len(t, present(gone...), 2)

				e.clock.advance(attachment.SweepGrace + time.Minute)
				purge()
				require.Empty(t, present(crashed), "the sweep removes an orphan past the grace")
				require.Len(t, present(gone...), 2)

				e.clock.advance(31 * 24 * time.Hour)
				purge()
				require.Empty(t, present(gone...), "the retention purge deletes the bytes")
				require.Zero(t, rows(deleted.ID))
				require.Equal(t, []string{kept}, present(kept), "a live conversation keeps its bytes")
				require.Equal(t, 1, rows(keep.ID))
				all, err := blobs.Keys(context.Background(), "")
				require.NoError(t, err)
				require.Len(t, all, 1, "nothing else is left: %s", strings.Join(all, ", "))
			}, temporaryChats(domain.TemporaryChatsAllowed))
		})
	}
}
