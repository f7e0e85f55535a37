package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/viewer"
)

// node resolves one global id. The table lookup ignores privacy; the load
// that follows is privacy-filtered, so an id of another tenant or user is
// NOT_FOUND exactly like an id that does not exist. Conversations load
// through the engine, which hides DELETED ones and audits an admin opening
// another user's conversation.
func (r *Resolver) node(ctx context.Context, id uuid.UUID) (ent.Noder, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	table, err := r.nodeType(ctx, id)
	if err != nil {
		return nil, notFound(err, "node")
	}
	if table == conversation.Table {
		c, err := r.engine.Conversation(ctx, id)
		if err != nil {
			return nil, notFound(err, "node")
		}
		return c, nil
	}
	n, err := r.client.Noder(ctx, id, ent.WithFixedNodeType(table))
	if err != nil {
		return nil, notFound(err, "node")
	}
	// Rows beneath a conversation disappear with it when it is soft-deleted.
	if convID, ok, err := r.conversationOf(ctx, table, id); err != nil {
		return nil, notFound(err, "node")
	} else if ok {
		if _, err := r.engine.Conversation(ctx, convID); err != nil {
			return nil, notFound(err, "node")
		}
	}
	return n, nil
}

// conversationOf returns the conversation a message, attempt, source or
// feedback row lives in (read separately: the node itself may carry only
// the fields the query selected).
func (r *Resolver) conversationOf(ctx context.Context, table string, id uuid.UUID) (uuid.UUID, bool, error) {
	var attemptID uuid.UUID
	switch table {
	case message.Table:
		m, err := r.client.Message.Query().Where(message.ID(id)).Select(message.FieldConversationID).Only(ctx)
		if err != nil {
			return uuid.Nil, false, err
		}
		return m.ConversationID, true, nil
	case attempt.Table:
		attemptID = id
	case source.Table:
		s, err := r.client.Source.Query().Where(source.ID(id)).Select(source.FieldAttemptID).Only(ctx)
		if err != nil {
			return uuid.Nil, false, err
		}
		attemptID = s.AttemptID
	case feedback.Table:
		f, err := r.client.Feedback.Query().Where(feedback.ID(id)).Select(feedback.FieldAttemptID).Only(ctx)
		if err != nil {
			return uuid.Nil, false, err
		}
		attemptID = f.AttemptID
	default:
		return uuid.Nil, false, nil
	}
	a, err := r.client.Attempt.Query().Where(attempt.ID(attemptID)).Select(attempt.FieldConversationID).Only(ctx)
	if err != nil {
		return uuid.Nil, false, err
	}
	return a.ConversationID, true, nil
}

// nodes resolves up to Limits.MaxNodes ids. A missing id leaves a null in
// its place and adds a NOT_FOUND error at its index.
func (r *Resolver) nodes(ctx context.Context, ids []uuid.UUID) ([]ent.Noder, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	if len(ids) > r.limits.MaxNodes {
		return nil, badInput("ids", "at most %d ids per nodes query", r.limits.MaxNodes).With("limit", "nodes")
	}
	out := make([]ent.Noder, len(ids))
	for i, id := range ids {
		n, err := r.node(ctx, id)
		if err != nil {
			graphql.AddError(graphql.WithPathContext(ctx, graphql.NewPathWithIndex(i)), err)
			continue
		}
		out[i] = n
	}
	return out, nil
}
