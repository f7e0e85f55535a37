// Package prepared carries the rows that hooks write beside a prepared
// create (the Prepare method of ent/template/prepare.tmpl). A caller that
// writes a prepared row as one step of its own statement (internal/chat's
// ask on PostgreSQL) opens a Batch in the context it prepares with; a hook
// that would send a write of its own for that row (the search index's
// entry, internal/convsearch) prepares that write too and adds its spec to
// the Batch, and the caller writes it in the same statement. Without a
// Batch the hook sends its write itself.
package prepared

import (
	"context"
	"sync"

	"entgo.io/ent/dialect/sql/sqlgraph"
)

// Batch is the create specs added while a caller prepared its rows, in
// the order they were added.
type Batch struct {
	mu    sync.Mutex
	specs []*sqlgraph.CreateSpec
}

type batchKey struct{}

// WithBatch returns ctx carrying a new, empty Batch, and the Batch.
func WithBatch(ctx context.Context) (context.Context, *Batch) {
	b := &Batch{}
	return context.WithValue(ctx, batchKey{}, b), b
}

// From returns the Batch ctx carries, or nil.
func From(ctx context.Context) *Batch {
	b, _ := ctx.Value(batchKey{}).(*Batch)
	return b
}

// Add appends spec to b.
func (b *Batch) Add(spec *sqlgraph.CreateSpec) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.specs = append(b.specs, spec)
}

// Specs returns the specs added so far, in order.
func (b *Batch) Specs() []*sqlgraph.CreateSpec {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*sqlgraph.CreateSpec(nil), b.specs...)
}
