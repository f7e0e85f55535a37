package organise

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// convChange decides and writes one change of conv inside tx. It returns
// false when conv already is what the caller asks for: the transaction is
// then rolled back and the version stays.
type convChange func(ctx context.Context, tx *ent.Tx, v *viewer.Viewer, conv *ent.Conversation) (bool, error)

// changeConversation runs change on the viewer's own conversation id in
// one transaction. Its first statement bumps the version (with expected
// set, only from that version) and so locks the row until the commit;
// a conversation that is not the viewer's own, DELETED or unknown is
// NOT_FOUND, a stale expected version CONFLICT with currentVersion. After
// the commit the change is published.
func (s *Service) changeConversation(ctx context.Context, id uuid.UUID, expected *int, change convChange) (*ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	u := tx.Conversation.UpdateOneID(id).Where(ownLive(v)...)
	if expected != nil {
		u.Where(conversation.Version(*expected))
	}
	conv, err := u.AddVersion(1).Save(ctx)
	if ent.IsNotFound(err) && expected != nil {
		cur, qerr := tx.Conversation.Query().Where(conversation.ID(id)).Where(ownLive(v)...).Only(ctx)
		if qerr == nil {
			return nil, rollback(tx, versionConflict(cur.Version, *expected))
		}
	}
	if err != nil {
		return nil, rollback(tx, store.DomainError(err, "conversation"))
	}
	changed, err := change(ctx, tx, v, conv)
	if err != nil {
		return nil, rollback(tx, err)
	}
	if !changed {
		_ = tx.Rollback()
		return s.ownConversation(ctx, v, id)
	}
	conv, err = tx.Conversation.Get(ctx, id)
	if err != nil {
		return nil, rollback(tx, store.DomainError(err, "conversation"))
	}
	if err := tx.Commit(); err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	conv = conv.Unwrap()
	s.notify.ConversationsUpdated(ctx, conv)
	return conv, nil
}

// ownLive are the predicates of the viewer's own conversations that are
// not DELETED: even an admin organises only their own.
func ownLive(v *viewer.Viewer) []predicate.Conversation {
	return []predicate.Conversation{
		conversation.UserID(v.UserID), conversation.StatusNEQ(conversation.StatusDELETED),
	}
}

// ownConversation reads the viewer's own live conversation id.
func (s *Service) ownConversation(ctx context.Context, v *viewer.Viewer, id uuid.UUID) (*ent.Conversation, error) {
	conv, err := s.client.Conversation.Query().Where(conversation.ID(id)).Where(ownLive(v)...).Only(ctx)
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	return conv, nil
}

// versionConflict is the CONFLICT of a stale expectedVersion, worded like
// the other conversation mutations' (docs/API.md, "Optimistic version
// checks").
func versionConflict(current, expected int) error {
	return domain.Errorf(domain.CodeConflict,
		"the conversation changed since version %d (it is at version %d); reload it and try again", expected, current).
		With("currentVersion", current).With("expectedVersion", expected)
}

// rollback rolls tx back and returns err.
func rollback(tx *ent.Tx, err error) error {
	_ = tx.Rollback()
	return err
}
