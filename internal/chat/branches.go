package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat/tree"
	"github.com/ragchat/ragchat/internal/chat/treebackfill"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The writes of a conversation's message tree (docs/ENGINE.md, "Message
// trees") beside Ask: asking below a chosen message, editing a question,
// and selecting a branch. Retry (attempts.go) regenerates an answer at any
// depth; ForkConversation (fork.go) copies a path.

// legacyTree reports whether conv was written before message trees: it has
// messages but no current leaf (its messages have no parents yet).
func legacyTree(conv *ent.Conversation) bool {
	return conv.CurrentLeafID == nil && conv.LastSequenceNo > 0
}

// backfillTree makes a conversation written before message trees a single
// path (internal/chat/treebackfill) before a write extends it: a write
// that set the leaf first would mark it done for the backfill with its
// old messages still without parents. The server also backfills every
// such conversation in the background at start; both are idempotent. The
// caller has authorised the conversation; the backfill runs as its job.
func (e *Engine) backfillTree(ctx context.Context, conversationID uuid.UUID) error {
	if err := treebackfill.Conversation(ctx, e.client, conversationID); err != nil {
		return store.DomainError(err, "conversation")
	}
	return nil
}

// LegacyLeaf returns the current leaf of a conversation the viewer may
// read whose loaded row has none: nil for a conversation without messages;
// for one written before message trees that the background backfill has
// not reached yet, the leaf of its old line, backfilled now (as for a
// write), so that its first read already shows its current path. A
// conversation the viewer may not read is NOT_FOUND.
func (e *Engine) LegacyLeaf(ctx context.Context, conversationID uuid.UUID) (*uuid.UUID, error) {
	read := func() (*ent.Conversation, error) {
		c, err := e.client.Conversation.Query().Where(conversation.ID(conversationID)).
			Select(conversation.FieldCurrentLeafID, conversation.FieldLastSequenceNo).Only(ctx)
		return c, store.DomainError(err, "conversation")
	}
	c, err := read()
	if err != nil || !legacyTree(c) {
		return leafOf(c), err
	}
	if err := e.backfillTree(ctx, conversationID); err != nil {
		return nil, err
	}
	c, err = read()
	return leafOf(c), err
}

// leafOf is c's current leaf, nil for no conversation.
func leafOf(c *ent.Conversation) *uuid.UUID {
	if c == nil {
		return nil
	}
	return c.CurrentLeafID
}

// editMessage is Ask with AskInput.EditOf (messageID): it edits one of
// the viewer's own USER messages, at any depth: a
// sibling USER message with the new question under the same parent (at the
// same depth, edited_from_id naming the original, with the next sequence
// number), and the PENDING attempt answering it; the new message becomes
// the current leaf, and the old branch stays as it was. It is an ask in all
// but its place (Ask's checks, idempotency, busy rule, rate and one short
// transaction, one statement on PostgreSQL): clientMessageID shares the
// conversation's keys with asks, a replay returns the original edit with
// Deduplicated, and the key of another question or request is
// IDEMPOTENCY_MISMATCH. It publishes MESSAGE_CREATED, ATTEMPT_UPDATED and
// BRANCH_SELECTED. Anything but a USER message of a conversation the viewer
// owns (an answer, another user's or tenant's message, one of a deleted
// conversation, a random id) is NOT_FOUND "message": support agents and
// admins read branches, they do not edit them.
func (e *Engine) editMessage(ctx context.Context, messageID uuid.UUID, spot askSpot, clientMessageID, question string) (*AskResult, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	orig, err := e.client.Message.Query().
		Where(message.ID(messageID), message.OwnerID(v.UserID), message.RoleEQ(message.RoleUSER)).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, domain.NotFound("message")
	}
	if err != nil {
		return nil, store.DomainError(err, "message")
	}
	spot.edit, spot.parent = orig, nil
	return e.ask(ctx, orig.ConversationID, spot, clientMessageID, question)
}

// SelectBranch makes the path through messageID the conversation's
// current branch: the current leaf becomes the newest message below
// messageID (tree.NewestBelow, its most recently active leaf), the
// conversation's version is bumped, and BRANCH_SELECTED goes to the
// conversation's and the owner's feeds on every instance. Only the owner
// selects (the choice is theirs, stored for all their devices): a
// conversation the viewer does not own (support agents and admins
// included), a deleted or unknown one is NOT_FOUND "conversation"; a
// messageID that is not a message of it is NOT_FOUND "message". An
// archived or expired conversation can still be read along any branch, so
// selecting is allowed there. An answer running on another branch goes on
// and completes on its own branch without moving the leaf away from the
// selection (saveCompletion).
//
// The transaction locks the conversation first, as a completion does, so
// a completion either committed before (its answer is below messageID and
// can be the newest) or waits and then finds the selected leaf.
func (e *Engine) SelectBranch(ctx context.Context, conversationID, messageID uuid.UUID) (*ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	return e.selectBranch(ctx, v, conversationID, messageID, false)
}

// selectBranch is SelectBranch; backfilled says that the conversation,
// written before message trees, was made a tree for it already.
func (e *Engine) selectBranch(ctx context.Context, v *viewer.Viewer, conversationID, messageID uuid.UUID, backfilled bool) (*ent.Conversation, error) {
	tx, err := e.client.Tx(ctx)
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	locked, err := tx.Conversation.UpdateOneID(conversationID).
		Where(conversation.UserID(v.UserID), conversation.StatusNEQ(conversation.StatusDELETED)).
		AddVersion(1).
		Save(ctx)
	if ent.IsNotFound(err) {
		return nil, rollback(tx, domain.NotFound("conversation"))
	}
	if err != nil {
		return nil, rollback(tx, store.DomainError(err, "conversation"))
	}
	if legacyTree(locked) && !backfilled {
		_ = tx.Rollback()
		if err := e.backfillTree(ctx, conversationID); err != nil {
			return nil, err
		}
		return e.selectBranch(ctx, v, conversationID, messageID, true)
	}
	leaf, err := tree.NewestBelow(ctx, tx.Message, conversationID, messageID)
	if ent.IsNotFound(err) {
		return nil, rollback(tx, domain.NotFound("message"))
	}
	if err != nil {
		return nil, rollback(tx, store.DomainError(err, "message"))
	}
	conv, err := tx.Conversation.UpdateOneID(conversationID).SetCurrentLeafID(leaf.ID).Save(ctx)
	if err != nil {
		return nil, rollback(tx, store.DomainError(err, "conversation"))
	}
	if err := tx.Commit(); err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	conv = conv.Unwrap()
	e.feed.BranchSelected(ctx, conv, leaf.ID)
	return conv, nil
}
