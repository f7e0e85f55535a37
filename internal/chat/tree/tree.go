// Package tree reads a conversation's message tree (docs/ENGINE.md,
// "Message trees"): the path from a message up to the root, the bounded
// walk up from a message that the history window and the summariser read
// (Up, ending at the nearest summarised ancestor when asked), the subtree
// below a message, a message's siblings and the newest leaf below a
// branch point.
//
// A message's parent is the message it follows on its path, and its depth
// is the number of its ancestors, so a path is contiguous in depth: the
// ancestors of a message at depth d are at depths d-1 … 0. The walks are
// recursive common table expressions over the primary key (up) and the
// (parent_id, sequence_no) index (down), identical on PostgreSQL and
// SQLite, and bounded by depth, so a page of a path costs the same at any
// length of the conversation.
//
// The walks only name ids: every row is read through Ent's builders with
// the predicates below (Path, Below, Up), so the privacy policies filter
// the rows as for any other read. On PostgreSQL the ids go in as an array
// (idIn), so that the rows are read by primary key under any plan.
package tree

import (
	"context"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/predicate"
)

// Path is the predicate "the message is start or one of its ancestors at
// depth minDepth or deeper". minDepth 0 (or less) walks to the root.
func Path(start uuid.UUID, minDepth int) predicate.Message {
	if minDepth < 0 {
		minDepth = 0
	}
	return predicate.Message(func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			idIn(s, b, func() {
				b.WriteString("WITH RECURSIVE tree_up(id, parent_id, depth) AS (" +
					"SELECT id, parent_id, depth FROM messages WHERE id = ").Arg(start).
					WriteString(" AND depth >= ").Arg(minDepth).
					WriteString(" UNION ALL SELECT m.id, m.parent_id, m.depth FROM messages m JOIN tree_up ON m.id = tree_up.parent_id" +
						" WHERE m.depth >= ").Arg(minDepth).
					WriteString(") SELECT id FROM tree_up")
			})
		}))
	})
}

// Below is the predicate "the message is root or one of its descendants".
func Below(root uuid.UUID) predicate.Message {
	return predicate.Message(func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			idIn(s, b, func() {
				b.WriteString("WITH RECURSIVE tree_down(id) AS (" +
					"SELECT id FROM messages WHERE id = ").Arg(root).
					WriteString(" UNION ALL SELECT m.id FROM messages m JOIN tree_down ON m.parent_id = tree_down.id" +
						") SELECT id FROM tree_down")
			})
		}))
	})
}

// NewestBelow returns the most recently created message in the subtree of
// root (root itself when it has no descendants): the most recently active
// leaf of the branch through root, which selecting that branch continues
// to. Rows are read through c, so the privacy policies apply; a root the
// viewer may not read is ent.NotFoundError.
func NewestBelow(ctx context.Context, c *ent.MessageClient, conversationID, root uuid.UUID) (*ent.Message, error) {
	return c.Query().
		Where(message.ConversationID(conversationID), Below(root)).
		Order(ent.Desc(message.FieldSequenceNo)).
		First(ctx)
}

// Siblings are the messages that share a parent, in creation order.
type Siblings struct {
	// IDs are the siblings' ids, this message's included, oldest first.
	IDs []uuid.UUID
	// Index is this message's position in IDs.
	Index int
}

// Group names a set of siblings: the children of Parent, or, when Parent
// is uuid.Nil, the roots of Conversation.
type Group struct {
	Conversation uuid.UUID
	Parent       uuid.UUID
}

// GroupOf is the sibling group m belongs to.
func GroupOf(m *ent.Message) Group {
	if m.ParentID != nil {
		return Group{Parent: *m.ParentID}
	}
	return Group{Conversation: m.ConversationID}
}

// SiblingGroups returns the ids of each group's messages, oldest first
// (by sequence number), read through c in one statement for any number of
// groups. A group with no message the viewer may read maps to nil.
func SiblingGroups(ctx context.Context, c *ent.MessageClient, groups []Group) (map[Group][]uuid.UUID, error) {
	out := make(map[Group][]uuid.UUID, len(groups))
	var parents, rootConvs []uuid.UUID
	for _, g := range groups {
		if _, seen := out[g]; seen {
			continue
		}
		out[g] = nil
		if g.Parent != uuid.Nil {
			parents = append(parents, g.Parent)
		} else {
			rootConvs = append(rootConvs, g.Conversation)
		}
	}
	if len(out) == 0 {
		return out, nil
	}
	var ors []predicate.Message
	if len(parents) > 0 {
		ors = append(ors, message.ParentIDIn(parents...))
	}
	if len(rootConvs) > 0 {
		ors = append(ors, message.And(message.ParentIDIsNil(), message.ConversationIDIn(rootConvs...)))
	}
	rows, err := c.Query().
		Where(message.Or(ors...)).
		Order(ent.Asc(message.FieldSequenceNo)).
		Select(message.FieldID, message.FieldConversationID, message.FieldParentID, message.FieldSequenceNo).
		All(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		g := GroupOf(r)
		if _, asked := out[g]; asked {
			out[g] = append(out[g], r.ID)
		}
	}
	return out, nil
}

// Of returns m's siblings within ids, the ids of m's group: m alone when
// ids is empty (a message the query could not see, such as one created in
// the same transaction).
func Of(m *ent.Message, ids []uuid.UUID) Siblings {
	for i, id := range ids {
		if id == m.ID {
			return Siblings{IDs: ids, Index: i}
		}
	}
	if len(ids) == 0 {
		return Siblings{IDs: []uuid.UUID{m.ID}}
	}
	return Siblings{IDs: ids}
}

// SiblingsOf returns, for each of msgs (all of one conversation or not),
// its siblings: the messages with the same parent (roots: the
// conversation's roots), in sequence order. It is one statement for any
// number of messages, read through c (SiblingGroups).
func SiblingsOf(ctx context.Context, c *ent.MessageClient, msgs []*ent.Message) (map[uuid.UUID]Siblings, error) {
	out := make(map[uuid.UUID]Siblings, len(msgs))
	if len(msgs) == 0 {
		return out, nil
	}
	groups := make([]Group, 0, len(msgs))
	for _, m := range msgs {
		groups = append(groups, GroupOf(m))
	}
	ids, err := SiblingGroups(ctx, c, groups)
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		out[m.ID] = Of(m, ids[GroupOf(m)])
	}
	return out, nil
}

// Page is one page of a path, root side first.
type Page struct {
	// Messages are the page's messages, in path order (ascending depth).
	Messages []*ent.Message
	// HasBefore reports that the path continues above the page.
	HasBefore bool
}

// LastOf returns the last n messages of the path that ends at end
// (inclusive), oldest first: the page a UI opens a conversation with, and,
// with end the parent of the first message of a page, the page before it.
// It reads only those n rows, whatever the path's length.
func LastOf(ctx context.Context, c *ent.MessageClient, end *ent.Message, n int) (Page, error) {
	if end == nil || n <= 0 {
		return Page{}, nil
	}
	rows, err := c.Query().
		Where(message.ConversationID(end.ConversationID), Path(end.ID, end.Depth-n+1)).
		Order(ent.Asc(message.FieldDepth)).
		All(ctx)
	if err != nil {
		return Page{}, err
	}
	p := Page{Messages: rows}
	if len(rows) > 0 {
		p.HasBefore = rows[0].Depth > 0
	}
	return p, nil
}

// Walk is a bounded walk up a path: from a message through its nearest
// ancestors.
type Walk struct {
	// Start is the message the walk starts at (the deepest one).
	Start uuid.UUID
	// Limit is how many messages the walk takes at most, Start included.
	Limit int
	// AtSummary ends the walk at the first message that carries a path
	// summary (path_summary not null), or whose sequence number is
	// CoveredSeq when that is positive (the coverage of a conversation
	// summary written before messages carried their own), that message
	// included: the rounds below it are the ones the summary does not
	// cover yet.
	AtSummary  bool
	CoveredSeq int64
	// Conversation, when set, keeps the walk in that conversation: its
	// messages only. A caller sets it instead of filtering the rows by
	// conversation itself, so that the read has no predicate that would
	// make the planner prefer the conversation's index (every message of
	// it) to the walk's primary keys (idIn).
	Conversation uuid.UUID
}

// Up is the predicate "the message is one of the walk's": w.Start and its
// nearest ancestors, at most w.Limit of them, up to the first summarised
// one when w.AtSummary. Unlike Path it needs no depth, so a caller that
// knows only the message at the end of a path (a conversation's current
// leaf) reads the same bounded window as one that knows its depth.
func Up(w Walk) predicate.Message {
	return predicate.Message(func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			stop := func(alias string) {
				if !w.AtSummary {
					b.WriteString("0")
					return
				}
				b.WriteString("CASE WHEN " + alias + "path_summary IS NOT NULL")
				if w.CoveredSeq > 0 {
					b.WriteString(" OR " + alias + "sequence_no = ").Arg(w.CoveredSeq)
				}
				b.WriteString(" THEN 1 ELSE 0 END")
			}
			idIn(s, b, func() {
				b.WriteString("WITH RECURSIVE tree_walk(id, parent_id, n, stop) AS (" +
					"SELECT id, parent_id, 1, ")
				stop("")
				b.WriteString(" FROM messages WHERE id = ").Arg(w.Start)
				if w.Conversation != uuid.Nil {
					b.WriteString(" AND conversation_id = ").Arg(w.Conversation)
				}
				b.WriteString(" UNION ALL SELECT m.id, m.parent_id, tree_walk.n + 1, ")
				stop("m.")
				b.WriteString(" FROM messages m JOIN tree_walk ON m.id = tree_walk.parent_id WHERE tree_walk.n < ").Arg(w.Limit).
					WriteString(" AND tree_walk.stop = 0")
				if w.Conversation != uuid.Nil {
					b.WriteString(" AND m.conversation_id = ").Arg(w.Conversation)
				}
				b.WriteString(") SELECT id FROM tree_walk")
			})
		}))
	})
}

// idIn writes "the message's id is one of the walk's", the walk being the
// query walk writes. On PostgreSQL it is id = ANY(ARRAY(walk)): the walk
// runs once, as an init plan, and the messages are read by primary key
// whatever the planner thinks of the conversation's size. With IN (walk)
// a plan chosen while the table was small (a generic plan kept by a
// prepared statement) could read every message of the conversation and
// semi-join the walk, a cost that grew with the conversation (a window
// read of 115 ms after 2,000 rounds; docs/BENCHMARKS.md, "Targets").
// SQLite, without arrays, keeps IN.
func idIn(s *sql.Selector, b *sql.Builder, walk func()) {
	b.Ident(s.C(message.FieldID))
	if s.Dialect() == dialect.Postgres {
		b.WriteString(" = ANY(ARRAY(")
		walk()
		b.WriteString("))")
		return
	}
	b.WriteString(" IN (")
	walk()
	b.WriteString(")")
}
