package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
)

// sourceAvailable reports whether the viewer may still read s's chunk.
func (r *Resolver) sourceAvailable(ctx context.Context, s *ent.Source) (bool, error) {
	v, err := r.sourceView(ctx, s)
	return v.Available, err
}

// sourceSnippet is s's cited text, or nil when it is no longer readable.
func (r *Resolver) sourceSnippet(ctx context.Context, s *ent.Source) (*string, error) {
	v, err := r.sourceView(ctx, s)
	if err != nil || !v.Available {
		return nil, err
	}
	return &s.Snippet, nil
}

// sourceDocumentTitle is the cited document's title, or nil when the
// source is no longer readable.
func (r *Resolver) sourceDocumentTitle(ctx context.Context, s *ent.Source) (*string, error) {
	v, err := r.sourceView(ctx, s)
	if err != nil || !v.Available {
		return nil, err
	}
	return &s.DocumentTitle, nil
}

// sourceDocumentID is the cited document's id, or nil when the source is no
// longer readable.
func (r *Resolver) sourceDocumentID(ctx context.Context, s *ent.Source) (*uuid.UUID, error) {
	v, err := r.sourceView(ctx, s)
	if err != nil || !v.Available {
		return nil, err
	}
	return s.DocumentID, nil
}
