package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// node resolves one global id. The table lookup is privacy-filtered
// (tenant, owner, document ACL, admin-only tables, and rows of DELETED
// conversations; internal/authz), so an id the viewer may not see is not
// found by the same one statement as a random one, and only a visible id
// costs the load that follows: every hidden id, of every type, answers
// exactly like a random one, with the same statements and the same
// NOT_FOUND error, byte for byte (errNodeNotFound). An admin reading
// another user's row is audited by the engine's read audit.
func (r *Resolver) node(ctx context.Context, id uuid.UUID) (ent.Noder, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	table, err := r.nodeType(ctx, id)
	if err != nil {
		return nil, nodeError(err)
	}
	n, err := r.client.Noder(ctx, id, ent.WithFixedNodeType(table))
	if err != nil {
		return nil, nodeError(err)
	}
	return n, nil
}

// errNodeNotFound is the one answer of node and nodes for an id that does
// not exist or is hidden from the viewer.
func errNodeNotFound() error { return domain.NotFound("node") }

// nodeError maps every "not found" of a node lookup, whatever the layer
// that said it (the table lookup, Ent, the engine), to errNodeNotFound;
// other failures (the database is down) pass through.
func nodeError(err error) error {
	if store.Classify(err) == store.ClassNotFound || domain.ErrorCode(err) == domain.CodeNotFound {
		return errNodeNotFound()
	}
	return err
}

// nodes resolves up to Limits.MaxNodes ids. A missing id leaves a null in
// its place and adds the NOT_FOUND error of node at its index.
func (r *Resolver) nodes(ctx context.Context, ids []uuid.UUID) ([]ent.Noder, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	if len(ids) > r.limits.MaxNodes {
		return nil, badInput("ids", "at most %d ids per nodes query", r.limits.MaxNodes).With("limit", "nodes").With("max", r.limits.MaxNodes)
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
