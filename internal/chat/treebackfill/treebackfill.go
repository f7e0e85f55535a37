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
// conversation with a current leaf is done, and a message that already has
// a parent keeps it.
//
// The jobs run as viewer.JobTreeBackfill, the system context background
// jobs use (like the retention purge), and read and write through Ent. The
// schema declares parent_id and depth immutable, so the generated update
// builders have no setters for them; the backfill writes them through
// Ent's statement modifier (MessageUpdate.Modify) inside the transaction,
// which keeps the privacy hooks and the dialect's placeholders, and
// touches only rows whose parent is still NULL.
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
	"github.com/ragchat/ragchat/internal/viewer"
)

// DefaultBatch is the number of conversations All reads per batch when
// batch is not positive.
const DefaultBatch = 100

// All backfills every legacy conversation (messages, but no current leaf),
// batch conversations per read, each in its own transaction, and returns
// how many it backfilled. It stops at the first error (the next run picks
// up where it stopped) or when ctx is done.
func All(ctx context.Context, client *ent.Client, batch int) (int, error) {
	if batch <= 0 {
		batch = DefaultBatch
	}
	ctx = viewer.SystemJobContext(ctx, viewer.JobTreeBackfill)
	done := 0
	var after uuid.UUID
	for {
		q := client.Conversation.Query().
			Where(conversation.CurrentLeafIDIsNil(), conversation.HasMessages())
		if after != uuid.Nil {
			q = q.Where(conversation.IDGT(after))
		}
		ids, err := q.Order(ent.Asc(conversation.FieldID)).Limit(batch).IDs(ctx)
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
			return done, nil
		}
		after = ids[len(ids)-1]
	}
}

// Conversation backfills one conversation; one that is already a tree (it
// has a current leaf) or has no messages is left alone.
func Conversation(ctx context.Context, client *ent.Client, conversationID uuid.UUID) error {
	ctx = viewer.SystemJobContext(ctx, viewer.JobTreeBackfill)
	_, err := backfill(ctx, client, conversationID)
	return err
}

// backfill runs the transaction of one conversation and reports whether it
// set the conversation's tree.
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
// reports whether it set the conversation's tree. ctx must allow the reads
// and writes (a system job context, or the owner's). It locks the
// conversation row first (FOR UPDATE on PostgreSQL; SQLite's transactions
// take the write lock when they begin), so a caller that is about to
// extend a legacy conversation (an ask) can run it in its own
// transaction first.
func InTx(ctx context.Context, tx *ent.Tx, id uuid.UUID) (bool, error) {
	convs, err := tx.Conversation.Query().
		Where(conversation.ID(id), conversation.CurrentLeafIDIsNil()).
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
		return false, nil // unknown, or already a tree
	}
	conv := convs[0]
	msgs, err := tx.Message.Query().
		Where(message.ConversationID(id)).
		Order(ent.Asc(message.FieldSequenceNo)).
		Select(message.FieldID, message.FieldConversationID, message.FieldParentID, message.FieldDepth,
			message.FieldSequenceNo, message.FieldRole, message.FieldAttemptID).
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
	for _, m := range msgs {
		link, ok := p.Links[m.ID]
		if !ok || m.ParentID != nil || link.Parent == nil {
			continue
		}
		parent, depth := *link.Parent, link.Depth
		_, err := tx.Message.Update().
			Where(message.ID(m.ID), message.ParentIDIsNil()).
			Modify(func(u *entsql.UpdateBuilder) {
				u.Set(message.FieldParentID, parent).Set(message.FieldDepth, depth)
			}).
			Save(ctx)
		if err != nil {
			return false, fmt.Errorf("treebackfill: set parent of message %s: %w", m.ID, err)
		}
	}
	// The conversation's updated_at is kept: the backfill is no activity.
	err = tx.Conversation.Update().
		Where(conversation.ID(id), conversation.CurrentLeafIDIsNil()).
		SetCurrentLeafID(p.Leaf).
		SetUpdatedAt(conv.UpdatedAt).
		Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("treebackfill: set current leaf of %s: %w", id, err)
	}
	return true, nil
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
// already has a parent keeps it and its depth; messages below it follow
// from there.
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
		if m.ParentID != nil {
			p := *m.ParentID
			parents[m.ID] = &p
			if m.Role == message.RoleUSER {
				id := m.ID
				prevUser = &id
			}
			continue
		}
		var parent *uuid.UUID
		switch m.Role {
		case message.RoleASSISTANT:
			if q, ok := answers[m.ID]; ok {
				parent = &q
			}
		case message.RoleUSER, message.RoleSYSTEM:
			if prevUser != nil {
				p := tip(*prevUser)
				parent = &p
			}
			if m.Role == message.RoleUSER {
				id := m.ID
				prevUser = &id
			}
		}
		parents[m.ID] = parent
	}
	// Depths, from the parents (a kept parent carries its stored depth).
	var depth func(id uuid.UUID, guard int) int
	depth = func(id uuid.UUID, guard int) int {
		if l, ok := t.Links[id]; ok {
			return l.Depth
		}
		m := byID[id]
		p := parents[id]
		d := 0
		switch {
		case m != nil && m.ParentID != nil:
			d = m.Depth
		case p != nil && guard < len(msgs):
			d = depth(*p, guard+1) + 1
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
