package attachment

import (
	"context"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/hook"
	"github.com/ragchat/ragchat/internal/viewer"
)

// deleteBlobsWithConversation is a hook on conversation deletes (the
// retention purge of DELETED conversations and the expiry of temporary
// chats both hard-delete them; the attachment rows go by the foreign key's
// cascade): it reads the blob keys of the conversations' attachments
// before the delete and removes the blobs once the delete has succeeded
// (after the commit when the delete runs in a transaction).
func (s *Service) deleteBlobsWithConversation() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.ConversationFunc(func(ctx context.Context, m *ent.ConversationMutation) (ent.Value, error) {
			ids, err := m.IDs(ctx)
			if err != nil || len(ids) == 0 {
				return next.Mutate(ctx, m)
			}
			// The keys are read as the purge job: the rows are about to
			// go whoever deletes them, and the caller's own delete was
			// authorised by the conversation's policy.
			sys := viewer.SystemJobContext(ctx, viewer.JobPurge)
			keys, err := m.Client().Attachment.Query().
				Where(attachment.ConversationIDIn(ids...)).
				Select(attachment.FieldBlobKey).Strings(sys)
			if err != nil {
				return nil, err
			}
			v, err := next.Mutate(ctx, m)
			if err != nil || len(keys) == 0 {
				return v, err
			}
			drop := func() {
				for _, k := range keys {
					s.deleteBlob(context.WithoutCancel(ctx), k)
				}
			}
			if tx, txErr := m.Tx(); txErr == nil {
				tx.OnCommit(func(next ent.Committer) ent.Committer {
					return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
						err := next.Commit(ctx, tx)
						if err == nil {
							drop()
						}
						return err
					})
				})
			} else {
				drop()
			}
			return v, nil
		})
	}, ent.OpDelete|ent.OpDeleteOne)
}
