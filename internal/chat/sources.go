package chat

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// AccessStamp is the access stamp of the viewer's tenant: it moves when
// what the tenant's viewers may read among its documents may have changed,
// on any replica (internal/authwatch). Source views computed by SourcesOf
// after reading a stamp stay what a fresh query would show as long as the
// stamp has not moved, so a stream may reuse them instead of asking the
// database again on every event.
func (e *Engine) AccessStamp(ctx context.Context) uint64 {
	tenant := ""
	if v := viewer.FromContext(ctx); v != nil {
		tenant = v.TenantID
	}
	return e.access.Stamp(tenant)
}

// evidenceGrant records that viewer retrieved a run's evidence under an
// access stamp: the search returned only chunks viewer could read then.
type evidenceGrant struct {
	stamp  uint64
	viewer *viewer.Viewer
}

// noteEvidence records that the viewer in ctx retrieved the evidence of
// this instance's run of attemptID under stamp.
func (e *Engine) noteEvidence(ctx context.Context, attemptID uuid.UUID, stamp uint64) {
	if r, ok := e.running(attemptID); ok {
		r.evidence.Store(&evidenceGrant{stamp: stamp, viewer: viewer.FromContext(ctx)})
	}
}

// liveSources re-authorises the sources of a live SOURCES event for the
// subscriber in ctx; stamp is the access stamp read before. When this
// instance retrieved them for a viewer with the same identity, roles and
// groups under the same stamp, they are all still readable and no query
// is needed: the usual case of an asker following their own answer.
// Otherwise SourcesOf checks them.
//
// The grant is the run's while it runs, then the one kept with its
// finished row (recentOutcomes): publishTerminal keeps it before the run
// ends, so a subscriber scheduled late finds it all the same.
func (e *Engine) liveSources(ctx context.Context, attemptID uuid.UUID, sources []*ent.Source, stamp uint64) ([]SourceView, error) {
	if g := e.evidenceOf(attemptID); g != nil && g.stamp == stamp && sameAccess(g.viewer, viewer.FromContext(ctx)) {
		out := make([]SourceView, len(sources))
		for i, s := range sources {
			// The run read every chunk it cites (an attachment's too) as
			// this viewer under this stamp.
			out[i] = SourceView{Source: s, Available: s.ChunkID != nil || (s.Kind == source.KindATTACHMENT && s.AttachmentID != nil)}
		}
		return out, nil
	}
	return e.SourcesOf(ctx, sources)
}

// evidenceOf returns the evidence grant of attempt id: its local run's, or
// the one kept with its finished row; nil when there is neither.
func (e *Engine) evidenceOf(id uuid.UUID) *evidenceGrant {
	if r, ok := e.running(id); ok {
		return r.evidence.Load()
	}
	return e.outcomes.evidence(id, time.Now())
}

// sameAccess reports whether a and b read the same documents: the same
// user of the same tenant with the same roles and groups.
func sameAccess(a, b *viewer.Viewer) bool {
	if a == nil || b == nil || a.TenantID != b.TenantID || a.UserID != b.UserID {
		return false
	}
	return sameSet(a.Roles, b.Roles) && sameSet(a.Groups, b.Groups)
}

// sameSet reports whether a and b hold the same elements.
func sameSet[T cmp.Ordered](a, b []T) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

// Sources returns an attempt's citation snapshots, re-authorised now.
func (e *Engine) Sources(ctx context.Context, attemptID uuid.UUID) ([]SourceView, error) {
	srcs, err := e.client.Source.Query().
		Where(source.AttemptID(attemptID)).
		Order(ent.Asc(source.FieldRank)).
		All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "attempt")
	}
	return e.SourcesOf(ctx, srcs)
}

// SourcesOf re-authorises loaded source rows with one privacy-filtered
// query: a snapshot is available only while the viewer may still read its
// chunk (docs/ENGINE.md D13: sources are re-checked on every use).
func (e *Engine) SourcesOf(ctx context.Context, sources []*ent.Source) ([]SourceView, error) {
	ids := make([]uuid.UUID, 0, len(sources))
	for _, s := range sources {
		if s.ChunkID != nil {
			ids = append(ids, *s.ChunkID)
		}
	}
	readable, err := e.readableChunks(ctx, ids)
	if err != nil {
		return nil, store.DomainError(err, "source")
	}
	attached, err := e.readableAttachments(ctx, sources)
	if err != nil {
		return nil, store.DomainError(err, "source")
	}
	out := make([]SourceView, len(sources))
	for i, s := range sources {
		ok := s.ChunkID != nil && readable[*s.ChunkID]
		if s.Kind == source.KindATTACHMENT {
			ok = s.AttachmentID != nil && attached[*s.AttachmentID]
		}
		out[i] = SourceView{Source: s, Available: ok}
	}
	return out, nil
}

// readableAttachments returns which attachments that sources cite the
// viewer may read now (Ent privacy: the conversation's owner, an agent
// under a grant); a deleted attachment or conversation is unavailable like
// a deleted document. It runs a query only when some source is an
// attachment's.
func (e *Engine) readableAttachments(ctx context.Context, sources []*ent.Source) (map[uuid.UUID]bool, error) {
	var ids []uuid.UUID
	for _, s := range sources {
		if s.Kind == source.KindATTACHMENT && s.AttachmentID != nil {
			ids = append(ids, *s.AttachmentID)
		}
	}
	out := make(map[uuid.UUID]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	visible, err := e.client.Attachment.Query().Where(attachment.IDIn(ids...)).IDs(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range visible {
		out[id] = true
	}
	return out, nil
}

// readableChunks returns which of ids the viewer may read now, with one
// privacy-filtered query.
func (e *Engine) readableChunks(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	out := make(map[uuid.UUID]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	visible, err := e.client.Chunk.Query().Where(chunk.IDIn(ids...)).IDs(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range visible {
		out[id] = true
	}
	return out, nil
}
