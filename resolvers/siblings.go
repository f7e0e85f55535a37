package resolvers

import (
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/chat/tree"
)

// Message.siblings is batched like the re-authorisation of sources
// (sourceauth.go): an Ent interceptor records the sibling group (the parent,
// or the conversation's roots) of every Message row a query operation
// loads, and the first Message.siblings resolved reads every recorded
// group in one tree.SiblingGroups statement. Field collection loads a
// page's messages before any of their fields resolve, so a page of 50
// messages (of messages, currentPath, or an event) costs one statement for
// all their siblings.
//
// Groups are kept for the rest of the operation only in queries: a
// mutation or subscription sees the tree change under it (an edit, a new
// answer), so there each Message.siblings reads its own group.

// maxSiblingGroups bounds the groups one operation records.
const maxSiblingGroups = 4096

type siblingBatchKey struct{}

// siblingBatch is the per-operation cache of sibling groups.
type siblingBatch struct {
	// pendingMu guards pending; it is separate from mu so that the Ent
	// interceptor never waits for a running batch.
	pendingMu sync.Mutex
	pending   map[tree.Group]struct{}

	mu     sync.Mutex
	groups map[tree.Group][]uuid.UUID
}

// withSiblingBatch returns ctx carrying a fresh sibling batch
// (WithOperationState).
func withSiblingBatch(ctx context.Context) context.Context {
	return context.WithValue(ctx, siblingBatchKey{}, &siblingBatch{
		pending: make(map[tree.Group]struct{}),
		groups:  make(map[tree.Group][]uuid.UUID),
	})
}

func siblingBatchFrom(ctx context.Context) *siblingBatch {
	b, _ := ctx.Value(siblingBatchKey{}).(*siblingBatch)
	return b
}

// withoutSiblingBatch hides the batch from ctx, so that the reads of the
// tree resolvers themselves (the siblings statement, a leaf or cursor
// lookup with a few columns) are not recorded.
func withoutSiblingBatch(ctx context.Context) context.Context {
	return context.WithValue(ctx, siblingBatchKey{}, (*siblingBatch)(nil))
}

// collect records the groups of loaded rows. A row loaded with a few
// columns may name a group nobody asks for; that costs a few rows in the
// batch's statement, never a wrong answer, since answers are looked up by
// the group of the row being resolved.
func (b *siblingBatch) collect(rows []*ent.Message) {
	b.pendingMu.Lock()
	defer b.pendingMu.Unlock()
	if len(b.pending)+len(rows) > maxSiblingGroups {
		clear(b.pending)
	}
	for _, m := range rows {
		if m == nil {
			continue
		}
		g := tree.GroupOf(m)
		if g == (tree.Group{}) {
			continue
		}
		b.pending[g] = struct{}{}
	}
}

// takePending returns and clears the recorded groups.
func (b *siblingBatch) takePending() []tree.Group {
	b.pendingMu.Lock()
	defer b.pendingMu.Unlock()
	out := make([]tree.Group, 0, len(b.pending))
	for g := range b.pending {
		out = append(out, g)
	}
	clear(b.pending)
	return out
}

// InstallMessageCollector adds to c the interceptor that records the
// sibling groups of the Message rows each operation loads; queries whose
// context has no sibling batch are not recorded. The composition root
// calls it once, where it opens the client (server.InstallInterceptors);
// without it each Message.siblings reads its own group.
func InstallMessageCollector(c *ent.Client) {
	c.Message.Intercept(onLoaded(func(ctx context.Context, v ent.Value) {
		if b := siblingBatchFrom(ctx); b != nil {
			switch rows := v.(type) {
			case []*ent.Message:
				b.collect(rows)
			case *ent.Message:
				b.collect([]*ent.Message{rows})
			}
		}
	}))
}

// siblingGroup returns the ids of m's sibling group, from the operation's
// batch in a query, else read on its own.
func (r *Resolver) siblingGroup(ctx context.Context, m *ent.Message) ([]uuid.UUID, error) {
	g := tree.GroupOf(m)
	b := siblingBatchFrom(ctx)
	if b == nil || !isQueryOperation(ctx) {
		ids, err := tree.SiblingGroups(withoutSiblingBatch(ctx), r.client.Message, []tree.Group{g})
		return ids[g], err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if ids, ok := b.groups[g]; ok && contains(ids, m.ID) {
		return ids, nil
	}
	batch := append(b.takePending(), g)
	got, err := tree.SiblingGroups(withoutSiblingBatch(ctx), r.client.Message, batch)
	if err != nil {
		return nil, err
	}
	if len(b.groups)+len(got) > maxSiblingGroups {
		clear(b.groups)
	}
	for k, ids := range got {
		b.groups[k] = ids
	}
	return got[g], nil
}

// isQueryOperation reports whether ctx runs a GraphQL query (not a
// mutation or subscription).
func isQueryOperation(ctx context.Context) bool {
	if !graphql.HasOperationContext(ctx) {
		return false
	}
	op := graphql.GetOperationContext(ctx).Operation
	return op != nil && op.Operation == ast.Query
}

func contains(ids []uuid.UUID, id uuid.UUID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
