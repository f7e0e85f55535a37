package knowledge

import (
	"context"

	"github.com/ragchat/ragchat/internal/viewer"
)

// AccessNotifier is told when what a tenant's viewers may read among its
// documents changed: an access list was set, a document was deleted, or
// its chunks were replaced. chat.Engine.AccessChanged is the notifier, so
// that open streams re-authorise the citations they show (internal/authwatch).
type AccessNotifier interface {
	AccessChanged(ctx context.Context, tenantID string)
}

// accessChanged tells the notifier, if any, that access to the viewer's
// tenant's documents changed; call it once the change is committed.
func (s *Service) accessChanged(ctx context.Context) {
	v := viewer.FromContext(ctx)
	if s.opts.Changes == nil || v == nil {
		return
	}
	s.opts.Changes.AccessChanged(ctx, v.TenantID)
}
