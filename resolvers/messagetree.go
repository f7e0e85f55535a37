package resolvers

import (
	"context"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/chat/tree"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The message-tree API (docs/API.md, "Message trees"): editMessage,
// selectBranch and forkConversation call the engine (internal/chat,
// branches.go and fork.go), which checks that every id is the viewer's
// own and answers NOT_FOUND otherwise; Conversation.currentPath reads the
// current branch through internal/chat/tree.

// defaultPathPage is currentPath's page without first or last: the last
// 20 messages of the branch, like the server's default page size
// (server.DefaultPageSize), which pages the other connections forward.
const defaultPathPage = 20

// editMessage edits one of the viewer's USER messages (an ask with
// EditOf), answering with the model chosen as in ask.
func (r *Resolver) editMessage(ctx context.Context, messageID uuid.UUID, question, clientMessageID string, profileID *uuid.UUID, params *domain.ModelParameters) (*model.AskPayload, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	res, err := r.engine.Ask(ctx, chat.AskInput{EditOf: &messageID, ClientMessageID: clientMessageID, Question: question,
		Model: modelChoice(profileID, params)})
	if err != nil {
		return nil, notFound(err, "message")
	}
	return askPayload(res), nil
}

// selectBranch makes the path through messageID current
// (engine.SelectBranch).
func (r *Resolver) selectBranch(ctx context.Context, conversationID, messageID uuid.UUID) (*ent.Conversation, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	c, err := r.engine.SelectBranch(ctx, conversationID, messageID)
	return c, notFound(err, "message")
}

// forkConversation copies the path to messageID into a new conversation
// (internal/fork); without the fork service it is UNAVAILABLE.
func (r *Resolver) forkConversation(ctx context.Context, messageID uuid.UUID, clientRequestID *string) (*ent.Conversation, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	key := orEmpty(clientRequestID)
	if r.forks == nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "forks are not available")
	}
	c, err := r.forks.Fork(ctx, messageID, key)
	return c, notFound(err, "message")
}

// currentPath pages the conversation's current branch, root to leaf
// (conversation.current_leaf_id). The path is contiguous in depth, so a
// page is a depth window of it and is read by one bounded walk
// (tree.Path) through Ent's paginator, which loads the fields asked for
// beneath the page as for messages:
//
//   - last: n (the default, n = 20), optionally before: c: the n messages
//     above c (the leaf when c is absent), walking n rows up from c's
//     parent whatever the length of the conversation;
//   - first: n, optionally after: c: the n messages below c (the root when
//     c is absent); the walk starts at the leaf (or before's parent), so
//     it costs the length of the branch below the page.
//
// Along a path sequence numbers increase with depth (a child is created
// after its parent), so the paginator orders by sequence number. Cursors
// are entgql cursors of the message id with the depth as value; a cursor
// the viewer may not read (another conversation's, or garbage) gives an
// empty page. totalCount is the branch's length (the leaf's depth + 1);
// pageInfo is computed from the window, so neither costs a count.
func (r *Resolver) currentPath(ctx context.Context, c *ent.Conversation, after *Cursor, first *int, before *Cursor, last *int) (*ent.MessageConnection, error) {
	if first == nil && last == nil {
		n := defaultPathPage
		last = &n
	}
	if err := validatePage(first, last); err != nil {
		return nil, err
	}
	empty := &ent.MessageConnection{Edges: []*ent.MessageEdge{}}
	leafID := c.CurrentLeafID
	if leafID == nil {
		// Empty, or written before message trees and not backfilled yet.
		id, err := r.engine.LegacyLeaf(ctx, c.ID)
		if err != nil || id == nil {
			return empty, notFound(err, "conversation")
		}
		leafID = id
	}
	quiet := withoutSiblingBatch(ctx)
	leaf, err := r.pathMessage(quiet, c.ID, *leafID)
	if err != nil || leaf == nil {
		return empty, err
	}
	empty.TotalCount = leaf.Depth + 1
	// The page is the depth window [low, high] of the path ending at end,
	// bounded by the cursors to [floor, end.Depth].
	end, floor := leaf, 0
	if before != nil {
		b, err := r.pathMessage(quiet, c.ID, before.ID)
		if err != nil || b == nil || b.ParentID == nil {
			empty.PageInfo.HasNextPage = b != nil
			return empty, err
		}
		end = &ent.Message{ID: *b.ParentID, ConversationID: c.ID, Depth: b.Depth - 1}
	}
	if after != nil {
		a, err := r.pathMessage(quiet, c.ID, after.ID)
		if err != nil || a == nil {
			return empty, err
		}
		floor = a.Depth + 1
	}
	low, high := floor, end.Depth
	if low > high {
		return empty, nil
	}
	var pi entgql.PageInfo[uuid.UUID]
	if last != nil {
		low = max(low, high-*last+1)
		if first != nil {
			high = min(high, low+*first-1)
		}
		pi.HasPreviousPage = low > floor
		pi.HasNextPage = before != nil || high < end.Depth
	} else {
		high = min(high, low+*first-1)
		pi.HasPreviousPage = after != nil
		pi.HasNextPage = high < end.Depth
	}
	if high < low {
		return &ent.MessageConnection{Edges: []*ent.MessageEdge{}, PageInfo: pi, TotalCount: leaf.Depth + 1}, nil
	}
	n := high - low + 1
	q := r.client.Message.Query().Where(
		message.ConversationID(c.ID),
		tree.Path(end.ID, low),
		message.DepthLTE(high),
	)
	conn, err := q.Paginate(onlyEdges(ctx), nil, nil, nil, &n,
		ent.WithMessageOrder(&ent.MessageOrder{Direction: entgql.OrderDirectionAsc, Field: ent.MessageOrderFieldSequenceNo}))
	if err != nil {
		return nil, err
	}
	// The page is the window low..high, oldest first; rows may have been
	// loaded without their depth (field collection selects only the
	// columns asked for), so each edge's depth is its place in the window.
	for i, e := range conn.Edges {
		e.Cursor = ent.Cursor{ID: e.Node.ID, Value: low + i}
	}
	conn.TotalCount = leaf.Depth + 1
	conn.PageInfo = pi
	if k := len(conn.Edges); k > 0 {
		conn.PageInfo.StartCursor = &conn.Edges[0].Cursor
		conn.PageInfo.EndCursor = &conn.Edges[k-1].Cursor
	}
	return conn, nil
}

// pathMessage reads the id, parent and depth of one message of the
// conversation, through the privacy policies; nil (no error) when the
// viewer may not read it or it does not exist.
func (r *Resolver) pathMessage(ctx context.Context, conversationID, id uuid.UUID) (*ent.Message, error) {
	m, err := r.client.Message.Query().
		Where(message.ID(id), message.ConversationID(conversationID)).
		Select(message.FieldID, message.FieldConversationID, message.FieldParentID, message.FieldDepth).
		Only(ctx)
	if store.Classify(err) == store.ClassNotFound {
		return nil, nil
	}
	return m, err
}

// validatePage refuses negative page sizes as the paginator does (the
// server refuses pages over its maximum before the operation runs).
func validatePage(first, last *int) error {
	if first != nil && *first < 0 {
		return badInput("first", "first must be a non-negative number")
	}
	if last != nil && *last < 0 {
		return badInput("last", "last must be a non-negative number")
	}
	return nil
}

// onlyEdges hides totalCount and pageInfo from the paginator, which
// would count the rows of the window; currentPath computes both.
func onlyEdges(ctx context.Context) context.Context {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !graphql.HasOperationContext(ctx) {
		return ctx
	}
	oc := graphql.GetOperationContext(ctx)
	var kept ast.SelectionSet
	for _, f := range graphql.CollectFields(oc, fc.Field.Selections, nil) {
		if f.Name != "totalCount" && f.Name != "pageInfo" {
			kept = append(kept, f.Field)
		}
	}
	trimmed := *fc
	trimmed.Field.Selections = kept
	return graphql.WithFieldContext(ctx, &trimmed)
}
