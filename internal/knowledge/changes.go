package knowledge

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/viewer"
)

// AccessNotifier is told when what a tenant's viewers may read among its
// documents changed: an access list was set, a document was deleted, or
// its chunks were replaced. The replica's authwatch.Access is the
// notifier, so that open streams re-authorise the citations they show.
type AccessNotifier interface {
	Changed(ctx context.Context, tenantID string)
}

// accessChanged tells the notifier, if any, that access to the viewer's
// tenant's documents changed; call it once the change is committed.
func (s *Service) accessChanged(ctx context.Context) {
	v := viewer.FromContext(ctx)
	if s.opts.Changes == nil || v == nil {
		return
	}
	s.opts.Changes.Changed(ctx, v.TenantID)
}

// DocumentNotifier is told which documents' content changed: a re-ingest
// replaced a document's chunks with others (a re-ingest of the same
// content changes nothing and is not reported). The replica's
// docwatch.Publisher is the notifier, so that open streams tell their
// clients which answers cited a changed document. A deletion is not
// reported: the citing sources no longer name the document once it is
// gone (their link is cleared), and staleness reports them as DELETED.
type DocumentNotifier interface {
	Changed(tenantID string, docIDs []uuid.UUID)
}

// documentsChanged tells the notifier, if any, that the content of docIDs
// of the viewer's tenant changed; call it once the change is committed.
func (s *Service) documentsChanged(ctx context.Context, docIDs ...uuid.UUID) {
	v := viewer.FromContext(ctx)
	if s.opts.Documents == nil || v == nil || len(docIDs) == 0 {
		return
	}
	s.opts.Documents.Changed(v.TenantID, docIDs)
}
