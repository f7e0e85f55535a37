package resolvers

import (
	"context"
	"sync"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/sourceauth"
)

// Citation snapshots (Source rows) are re-authorised on every read: the
// viewer may have lost access to the cited document since the answer was
// written. Doing that per source would be one query per citation, so each
// GraphQL operation carries a sourceAuth: an Ent interceptor records every
// Source row the operation loads (eager loads included), and the first
// Source.available (or snippet, documentTitle, documentId) resolved checks
// every recorded row in one sourceauth.Of call. Field collection loads
// all sources of a page before any of their fields resolve, so a page of
// messages costs one re-authorisation however many citations it shows.
//
// A subscription is one operation that lives as long as the stream, so its
// verdicts are kept under the access stamp (authwatch.Access.ViewerStamp) read
// before they were computed: while the stamp holds, nothing the viewer may
// read changed on any replica and an event reuses them with no query;
// once it moves (an access list changed, a document was deleted or
// replaced, or the broker may have lost such a change), the next source
// resolved checks its batch again, exactly as a fresh query would.

// maxSourceViews bounds the verdicts one operation keeps: a subscription
// open for days forgets them all past it and checks again.
const maxSourceViews = 4096

type sourceAuthKey struct{}

// sourceAuth is the per-operation cache of re-authorised sources.
type sourceAuth struct {
	// pendingMu guards pending; it is separate from mu so that the Ent
	// interceptor never waits for a running re-authorisation.
	pendingMu sync.Mutex
	pending   map[uuid.UUID]*ent.Source

	mu    sync.Mutex
	stamp uint64 // the access stamp views were computed under
	views map[uuid.UUID]sourceauth.View
}

// WithOperationState returns ctx carrying fresh per-operation resolver
// state: the source re-authorisation cache, the sibling batch
// (siblings.go) and the read-audit scope. OperationScope calls it once per
// GraphQL operation; without it every source is re-authorised, every
// message's siblings read, and every admin read audited, on its own.
func WithOperationState(ctx context.Context) context.Context {
	ctx = withReadAudit(ctx)
	ctx = withSiblingBatch(ctx)
	return context.WithValue(ctx, sourceAuthKey{}, &sourceAuth{
		pending: make(map[uuid.UUID]*ent.Source),
		views:   make(map[uuid.UUID]sourceauth.View),
	})
}

func sourceAuthFrom(ctx context.Context) *sourceAuth {
	sa, _ := ctx.Value(sourceAuthKey{}).(*sourceAuth)
	return sa
}

// collect records loaded rows for the next batch. Rows whose verdict was
// never asked for (a selection without available, snippet, documentTitle
// or documentId) are dropped past maxSourceViews.
func (sa *sourceAuth) collect(rows []*ent.Source) {
	sa.pendingMu.Lock()
	defer sa.pendingMu.Unlock()
	if len(sa.pending)+len(rows) > maxSourceViews {
		clear(sa.pending)
	}
	for _, s := range rows {
		if s != nil {
			sa.pending[s.ID] = s
		}
	}
}

// takePending returns and clears the recorded rows.
func (sa *sourceAuth) takePending() []*ent.Source {
	sa.pendingMu.Lock()
	defer sa.pendingMu.Unlock()
	out := make([]*ent.Source, 0, len(sa.pending))
	for _, s := range sa.pending {
		out = append(out, s)
	}
	clear(sa.pending)
	return out
}

// prime stores views the engine computed under stamp (a SOURCES event).
// Views of an older stamp than the cache's are dropped.
func (sa *sourceAuth) prime(views []sourceauth.View, stamp uint64) {
	sa.mu.Lock()
	defer sa.mu.Unlock()
	if stamp < sa.stamp {
		return
	}
	sa.revalidateLocked(stamp)
	for _, v := range views {
		if v.Source != nil {
			sa.views[v.Source.ID] = v
		}
	}
}

// revalidateLocked forgets every view when stamp is not the one they were
// computed under, or when they are too many, and takes stamp as the
// cache's.
func (sa *sourceAuth) revalidateLocked(stamp uint64) {
	if stamp != sa.stamp || len(sa.views) >= maxSourceViews {
		clear(sa.views)
	}
	sa.stamp = stamp
}

// InstallSourceCollector adds to c the interceptor that records the Source
// rows each operation loads into its sourceAuth; queries whose context has
// no sourceAuth are not recorded. The composition root calls it once,
// where it opens the client (server.InstallInterceptors); without it every
// source is re-authorised on its own.
func InstallSourceCollector(c *ent.Client) {
	c.Source.Intercept(onLoaded(func(ctx context.Context, v ent.Value) {
		if sa := sourceAuthFrom(ctx); sa != nil {
			if rows, ok := v.([]*ent.Source); ok {
				sa.collect(rows)
			}
		}
	}))
}

// withoutOperationState hides the sourceAuth from ctx, so that the
// engine's own queries are not recorded while a batch is being checked.
func withoutOperationState(ctx context.Context) context.Context {
	return context.WithValue(ctx, sourceAuthKey{}, (*sourceAuth)(nil))
}

// sourceView returns s as the viewer may see it now.
func (r *Resolver) sourceView(ctx context.Context, s *ent.Source) (sourceauth.View, error) {
	sa := sourceAuthFrom(ctx)
	if sa == nil {
		views, err := r.reauthorise(ctx, []*ent.Source{s})
		if err != nil {
			return sourceauth.View{}, err
		}
		return findView(views, s), nil
	}
	sa.mu.Lock()
	defer sa.mu.Unlock()
	// The stamp is read before the views are looked up or computed, so a
	// change committed meanwhile moves it past them; under the lock, so
	// that the cache's stamp never goes back.
	sa.revalidateLocked(r.access.ViewerStamp(ctx))
	if v, ok := sa.views[s.ID]; ok {
		return v, nil
	}
	batch := sa.takePending()
	if !containsSource(batch, s.ID) {
		batch = append(batch, s)
	}
	views, err := r.reauthorise(withoutOperationState(ctx), batch)
	if err != nil {
		return sourceauth.View{}, err
	}
	for _, v := range views {
		if v.Source != nil {
			sa.views[v.Source.ID] = v
		}
	}
	if v, ok := sa.views[s.ID]; ok {
		return v, nil
	}
	// The engine did not report s: treat it as unreadable.
	return sourceauth.View{Source: s}, nil
}

// findView returns the view of s in views, or an unavailable one.
func findView(views []sourceauth.View, s *ent.Source) sourceauth.View {
	for _, v := range views {
		if v.Source != nil && v.Source.ID == s.ID {
			return v
		}
	}
	return sourceauth.View{Source: s}
}

func containsSource(rows []*ent.Source, id uuid.UUID) bool {
	for _, s := range rows {
		if s.ID == id {
			return true
		}
	}
	return false
}
