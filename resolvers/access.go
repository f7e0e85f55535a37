package resolvers

import (
	"context"
	"errors"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// requireViewer returns the viewer in ctx, or UNAUTHENTICATED.
func requireViewer(ctx context.Context) (*viewer.Viewer, error) {
	v := viewer.FromContext(ctx)
	if v == nil {
		return nil, domain.Errorf(domain.CodeUnauthenticated, "authentication required")
	}
	return v, nil
}

// requireAdmin returns the viewer in ctx if they are a tenant admin, or
// FORBIDDEN.
func requireAdmin(ctx context.Context) (*viewer.Viewer, error) {
	v, err := requireViewer(ctx)
	if err != nil {
		return nil, err
	}
	if !v.IsAdmin() {
		return nil, domain.Errorf(domain.CodeForbidden, "admin role required")
	}
	return v, nil
}

// requireCurator returns the viewer in ctx if they may administer knowledge
// (admins and agents), or FORBIDDEN.
func requireCurator(ctx context.Context) (*viewer.Viewer, error) {
	v, err := requireViewer(ctx)
	if err != nil {
		return nil, err
	}
	if !v.CanCurateKnowledge() {
		return nil, domain.Errorf(domain.CodeForbidden, "admin or agent role required")
	}
	return v, nil
}

// notFound turns "no such row" errors into the canonical NOT_FOUND of kind;
// other errors pass through.
func notFound(err error, kind string) error {
	if err == nil {
		return nil
	}
	if ent.IsNotFound(err) || errors.Is(err, store.ErrUnknownNode) {
		return domain.NotFound(kind)
	}
	return err
}

// badInput returns a BAD_USER_INPUT error naming the offending field.
func badInput(field, format string, args ...any) *domain.Error {
	return domain.Errorf(domain.CodeBadUserInput, format, args...).With("field", field)
}
