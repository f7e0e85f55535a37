package attachment

import (
	"context"
	"fmt"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// pgLockOwner takes a transaction-scoped advisory lock named after one
// owner's attachments: uploads of the same user (whatever conversation)
// queue on it until the inserting transaction ends, so the counts
// checkLimits reads under it cannot change before the insert commits.
const pgLockOwner = `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`

// insert creates the attachment built by create in one transaction that
// first serialises the owner's uploads (lockOwner) and then checks the
// limits again, so that concurrent uploads never pass them: the
// files-per-conversation and bytes-per-user limits both count only the
// owner's rows. A refusal is the limit's BAD_USER_INPUT; nothing is
// written.
func (s *Service) insert(ctx context.Context, v *viewer.Viewer, create func(*ent.Client) *ent.AttachmentCreate) (*ent.Attachment, error) {
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return nil, store.DomainError(err, kind)
	}
	a, err := func() (*ent.Attachment, error) {
		if err := s.lockOwner(ctx, tx, v); err != nil {
			return nil, err
		}
		b := create(tx.Client())
		convID, _ := b.Mutation().ConversationID()
		size, _ := b.Mutation().Size()
		if err := s.checkLimits(ctx, tx.Client(), v, convID, size); err != nil {
			return nil, err
		}
		a, err := b.Save(ctx)
		if err != nil {
			return nil, store.DomainError(err, kind)
		}
		return a, nil
	}()
	if err != nil {
		_ = tx.Rollback() // err, not the rollback's, says why
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, store.DomainError(err, kind)
	}
	return a, nil
}

// lockOwner serialises the uploads of v's user in tx: an advisory lock on
// PostgreSQL; nothing on SQLite, whose transactions take the database's
// write lock when they begin (_txlock=immediate).
func (s *Service) lockOwner(ctx context.Context, tx *ent.Tx, v *viewer.Viewer) error {
	if !s.opts.Postgres {
		return nil
	}
	if _, err := tx.ExecContext(ctx, pgLockOwner, "attachment-owner:"+v.TenantID+":"+v.UserID); err != nil {
		return store.DomainError(fmt.Errorf("attachment lock: %w", err), kind)
	}
	return nil
}
