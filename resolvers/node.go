package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
)

// node resolves one global id. The table lookup ignores privacy; the load
// that follows is privacy-filtered, so an id of another tenant or user is
// NOT_FOUND exactly like an id that does not exist. Conversations load
// through the engine, which hides DELETED ones and audits an admin opening
// another user's conversation.
func (r *Resolver) node(ctx context.Context, id uuid.UUID) (ent.Noder, error) {
	if _, err := requireViewer(ctx); err != nil {
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
	return n, nil
}

// nodes resolves up to Limits.MaxNodes ids. A missing id leaves a null in
// its place and adds a NOT_FOUND error at its index.
func (r *Resolver) nodes(ctx context.Context, ids []uuid.UUID) ([]ent.Noder, error) {
	if _, err := requireViewer(ctx); err != nil {
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
