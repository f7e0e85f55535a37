package chat

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/sourceauth"
	"github.com/ragchat/ragchat/internal/viewer"
)

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
// Otherwise sourceauth.Of checks them.
//
// The grant is the run's while it runs, then the one kept with its
// finished row (recentOutcomes): publishTerminal keeps it before the run
// ends, so a subscriber scheduled late finds it all the same.
func (e *Engine) liveSources(ctx context.Context, attemptID uuid.UUID, sources []*ent.Source, stamp uint64) ([]sourceauth.View, error) {
	if g := e.evidenceOf(attemptID); g != nil && g.stamp == stamp && sameAccess(g.viewer, viewer.FromContext(ctx)) {
		out := make([]sourceauth.View, len(sources))
		for i, s := range sources {
			// The run read every chunk it cites (an attachment's too) as
			// this viewer under this stamp.
			out[i] = sourceauth.View{Source: s, Available: s.ChunkID != nil || (s.Kind == source.KindATTACHMENT && s.AttachmentID != nil)}
		}
		return out, nil
	}
	return sourceauth.Of(ctx, e.client, sources)
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
