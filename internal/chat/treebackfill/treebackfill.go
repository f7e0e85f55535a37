// Package treebackfill turns the conversations written before message trees
// (docs/ENGINE.md, "Rows written before message trees") into trees: their
// messages have no parent and depth 0, and the conversation has no current
// leaf. From the order the old code wrote them in (sequence_no), each
// conversation becomes a single path, its legacy retries sibling answers
// of their question:
//
//   - an ASSISTANT message's parent is its attempt's USER message;
//   - a USER message's parent is the latest completed answer of the USER
//     message before it, or that USER message when it has no answer, or
//     nothing for the first;
//   - a SYSTEM message's parent is the message the path had reached when it
//     was written, and it stays a leaf of its own: the next USER message
//     follows the answer, not the SYSTEM message;
//   - depth is the parent's plus one, and the current leaf is the newest
//     USER message's latest answer (or that message).
//
// Conversation backfills one conversation in one short transaction that
// first locks the conversation row (as an ask does), so it never races an
// ask or a completion of the same conversation; All backfills every legacy
// conversation in batches, and is what the server runs in the background
// at start. Both are idempotent and safe on several replicas at once: a
// message that already has a parent keeps it, and a conversation that is
// a tree is left as it is. A question a replica still running the old
// code wrote into a conversation that is already a tree (a rolling
// upgrade) is a second root; the backfill attaches it where the old order
// puts it and keeps the current leaf.
//
// The jobs run as viewer.JobTreeBackfill, the system context background
// jobs use (like the retention purge), and read and write through Ent. The
// schema declares parent_id and depth immutable, so the generated update
// builders have no setters for them; the backfill writes them through
// Ent's statement modifier (MessageUpdate.Modify) inside the transaction,
// which keeps the privacy hooks and the dialect's placeholders; a parent
// is only ever set where it is still NULL.
package treebackfill

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/internal/viewer"
)

// DefaultBatch is the number of conversations All reads per batch when
// batch is not positive.
const DefaultBatch = 100

// All backfills every legacy conversation, batch conversations per read,
// each in its own transaction, and returns how many it changed. The
// legacy conversations are those with messages but no current leaf, and
// those the old code wrote into after they became trees (more than one
// root question or answer not written by an edit). It stops at the first error
// (the next run picks up where it stopped) or when ctx is done.
func All(ctx context.Context, client *ent.Client, batch int) (int, error) {
	if batch <= 0 {
		batch = DefaultBatch
	}
	ctx = viewer.SystemJobContext(ctx, viewer.JobTreeBackfill)
	done := 0
	for _, list := range []func(context.Context, *ent.Client, uuid.UUID, int) ([]uuid.UUID, error){withoutLeaf, withRoots} {
		var after uuid.UUID
		for {
			ids, err := list(ctx, client, after, batch)
			if err != nil {
				return done, fmt.Errorf("treebackfill: list legacy conversations: %w", err)
			}
			for _, id := range ids {
				if err := ctx.Err(); err != nil {
					return done, err
				}
				changed, err := backfill(ctx, client, id)
				if err != nil {
					return done, err
				}
				if changed {
					done++
				}
			}
			if len(ids) < batch {
				break
			}
			after = ids[len(ids)-1]
		}
	}
	return done, nil
}

// withoutLeaf lists, after the id after, up to n conversations with
// messages and no current leaf: written before message trees.
func withoutLeaf(ctx context.Context, client *ent.Client, after uuid.UUID, n int) ([]uuid.UUID, error) {
	return client.Conversation.Query().
		Where(conversation.CurrentLeafIDIsNil(), conversation.HasMessages(), conversation.IDGT(after)).
		Order(ent.Asc(conversation.FieldID)).Limit(n).IDs(ctx)
}

// withRoots lists, after the id after, up to n conversations with more
// than one root USER or ASSISTANT message not written by an edit: the
// engine writes one (the first question), so the others were written by
// the old code after the conversation became a tree. The roots are read through the
// (parent_id, sequence_no) index.
func withRoots(ctx context.Context, client *ent.Client, after uuid.UUID, n int) ([]uuid.UUID, error) {
	var rows []struct {
		ConversationID uuid.UUID `sql:"conversation_id"`
	}
	err := client.Message.Query().
		Where(message.ParentIDIsNil(), message.EditedFromIDIsNil(), message.RoleNEQ(message.RoleSYSTEM),
			predicate.Message(entsql.FieldGT(message.FieldConversationID, after))).
		Modify(func(s *entsql.Selector) {
			c := s.C(message.FieldConversationID)
			s.Select(c).GroupBy(c).Having(entsql.ExprP("COUNT(*) > 1")).OrderBy(c).Limit(n)
		}).
		Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		ids[i] = r.ConversationID
	}
	return ids, nil
}

// Conversation backfills one conversation (InTx in a transaction of its
// own); one that is already a tree, or has no messages, is left alone.
func Conversation(ctx context.Context, client *ent.Client, conversationID uuid.UUID) error {
	ctx = viewer.SystemJobContext(ctx, viewer.JobTreeBackfill)
	_, err := backfill(ctx, client, conversationID)
	return err
}

// backfill runs the transaction of one conversation and reports whether it
// changed it.
func backfill(ctx context.Context, client *ent.Client, id uuid.UUID) (bool, error) {
	tx, err := client.Tx(ctx)
	if err != nil {
		return false, fmt.Errorf("treebackfill: begin: %w", err)
	}
	changed, err := InTx(ctx, tx, id)
	if err != nil {
		_ = tx.Rollback()
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("treebackfill: commit conversation %s: %w", id, err)
	}
	return changed, nil
}

// InTx backfills conversation id inside tx, which it does not end, and
// reports whether it changed anything. ctx must allow the reads and
// writes (a system job context, or the owner's). It locks the
// conversation row first (FOR UPDATE on PostgreSQL; SQLite's transactions
// take the write lock when they begin), as an ask does.
//
// A conversation that is a tree is read and left as it is. One with a
// question written as a second root (by the old code, or by an ask before
// the backfill) is repaired: the question is attached where the old order
// puts it (after the latest answer of the question before it, or beside
// the question it edits), the depths below it move along, and the current
// leaf is kept.
func InTx(ctx context.Context, tx *ent.Tx, id uuid.UUID) (bool, error) {
	convs, err := tx.Conversation.Query().
		Where(conversation.ID(id)).
		Modify(func(s *entsql.Selector) {
			if s.Dialect() == dialect.Postgres {
				s.ForUpdate()
			}
		}).
		All(ctx)
	if err != nil {
		return false, fmt.Errorf("treebackfill: lock conversation %s: %w", id, err)
	}
	if len(convs) == 0 {
		return false, nil // unknown
	}
	conv := convs[0]
	msgs, err := tx.Message.Query().
		Where(message.ConversationID(id)).
		Order(ent.Asc(message.FieldSequenceNo)).
		Select(message.FieldID, message.FieldConversationID, message.FieldParentID, message.FieldDepth,
			message.FieldSequenceNo, message.FieldRole, message.FieldAttemptID, message.FieldEditedFromID).
		All(ctx)
	if err != nil {
		return false, fmt.Errorf("treebackfill: read messages of %s: %w", id, err)
	}
	if len(msgs) == 0 {
		return false, nil
	}
	atts, err := tx.Attempt.Query().
		Where(attempt.ConversationID(id)).
		Select(attempt.FieldID, attempt.FieldUserMessageID, attempt.FieldStatus).
		All(ctx)
	if err != nil {
		return false, fmt.Errorf("treebackfill: read attempts of %s: %w", id, err)
	}
	p := Plan(msgs, atts)
	changed := false
	for _, m := range msgs {
		link, ok := p.Links[m.ID]
		if !ok {
			continue
		}
		depth := link.Depth
		upd := tx.Message.Update().Where(message.ID(m.ID))
		switch {
		case m.ParentID == nil && link.Parent != nil:
			parent := *link.Parent
			upd = upd.Where(message.ParentIDIsNil()).Modify(func(u *entsql.UpdateBuilder) {
				u.Set(message.FieldParentID, parent).Set(message.FieldDepth, depth)
			})
		case m.Depth != depth:
			// Below a question attached now: the same parent, further down.
			if m.ParentID != nil {
				upd = upd.Where(message.ParentID(*m.ParentID))
			} else {
				upd = upd.Where(message.ParentIDIsNil())
			}
			upd = upd.Modify(func(u *entsql.UpdateBuilder) { u.Set(message.FieldDepth, depth) })
		default:
			continue
		}
		if _, err := upd.Save(ctx); err != nil {
			return false, fmt.Errorf("treebackfill: set the place of message %s: %w", m.ID, err)
		}
		changed = true
	}
	if conv.CurrentLeafID == nil {
		// The conversation's updated_at is kept: the backfill is no activity.
		err = tx.Conversation.Update().
			Where(conversation.ID(id), conversation.CurrentLeafIDIsNil()).
			SetCurrentLeafID(p.Leaf).
			SetUpdatedAt(conv.UpdatedAt).
			Exec(ctx)
		if err != nil {
			return false, fmt.Errorf("treebackfill: set current leaf of %s: %w", id, err)
		}
		changed = true
	}
	return changed, nil
}

// Link is a message's place in the tree.
type Link struct {
	// Parent is the message's parent; nil for a root.
	Parent *uuid.UUID
	// Depth is the number of the message's ancestors.
	Depth int
}

// Tree is the tree Plan derives for a conversation.
type Tree struct {
	// Links are the messages' places, by message id.
	Links map[uuid.UUID]Link
	// Leaf is the last message of the main path.
	Leaf uuid.UUID
}

// Plan derives the tree of a conversation from its messages (in sequence
// order) and attempts, as the package comment describes. A message that
// already has a parent keeps it; depths are recomputed from the parents,
// so that the messages below a question attached now move down with it.
func Plan(msgs []*ent.Message, atts []*ent.Attempt) Tree {
	t := Tree{Links: make(map[uuid.UUID]Link, len(msgs))}
	byID := make(map[uuid.UUID]*ent.Message, len(msgs))
	for _, m := range msgs {
		byID[m.ID] = m
	}
	question := make(map[uuid.UUID]uuid.UUID, len(atts)) // attempt → its USER message
	completed := make(map[uuid.UUID]bool, len(atts))
	for _, a := range atts {
		question[a.ID] = a.UserMessageID
		completed[a.ID] = a.Status == attempt.StatusCOMPLETED
	}
	// The question each ASSISTANT message answers, and each question's
	// latest completed answer.
	answers := map[uuid.UUID]uuid.UUID{}
	latest := map[uuid.UUID]uuid.UUID{}
	var prevUser *uuid.UUID
	for _, m := range msgs {
		switch m.Role {
		case message.RoleUSER:
			id := m.ID
			prevUser = &id
		case message.RoleASSISTANT:
			q, ok := uuid.Nil, false
			if m.AttemptID != nil {
				q, ok = question[*m.AttemptID]
			}
			if !ok && prevUser != nil {
				q, ok = *prevUser, true // an answer whose attempt is gone
			}
			if !ok || byID[q] == nil {
				continue
			}
			answers[m.ID] = q
			// Messages come in sequence order, so the last completed
			// one wins; an answer whose attempt is gone counts as
			// completed (only completions wrote answers).
			if m.AttemptID == nil || completed[*m.AttemptID] || question[*m.AttemptID] == uuid.Nil {
				latest[q] = m.ID
			}
		}
	}
	// tip is where the path has reached after a question: its latest
	// answer, or the question itself.
	tip := func(q uuid.UUID) uuid.UUID {
		if a, ok := latest[q]; ok {
			return a
		}
		return q
	}
	parents := make(map[uuid.UUID]*uuid.UUID, len(msgs))
	prevUser = nil
	for _, m := range msgs {
		var parent *uuid.UUID
		switch {
		case m.ParentID != nil:
			p := *m.ParentID
			parent = &p
		case m.Role == message.RoleASSISTANT:
			if q, ok := answers[m.ID]; ok {
				parent = &q
			}
		case m.EditedFromID != nil:
			// An edit written as a root before the backfill: beside the
			// question it edits.
			if _, ok := byID[*m.EditedFromID]; ok {
				parent = parents[*m.EditedFromID]
			}
		case prevUser != nil:
			p := tip(*prevUser)
			parent = &p
		}
		parents[m.ID] = parent
		if m.Role == message.RoleUSER {
			id := m.ID
			prevUser = &id
		}
	}
	// Depths follow the parents.
	var depth func(id uuid.UUID, guard int) int
	depth = func(id uuid.UUID, guard int) int {
		if l, ok := t.Links[id]; ok {
			return l.Depth
		}
		p := parents[id]
		d := 0
		if p != nil {
			if _, known := byID[*p]; known && guard < len(msgs) {
				d = depth(*p, guard+1) + 1
			} else if m := byID[id]; m != nil {
				d = m.Depth // a parent outside the rows read: trust the row
			}
		}
		t.Links[id] = Link{Parent: p, Depth: d}
		return d
	}
	for _, m := range msgs {
		depth(m.ID, 0)
	}
	t.Leaf = msgs[len(msgs)-1].ID
	if prevUser != nil {
		t.Leaf = tip(*prevUser)
	}
	return t
}
