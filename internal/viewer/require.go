package viewer

import (
	"context"

	"github.com/ragchat/ragchat/internal/domain"
)

// Require returns the viewer in ctx, or an UNAUTHENTICATED error when the
// context carries none. It is the one role check every layer (resolvers,
// the conversation engine) uses, so that they answer alike.
func Require(ctx context.Context) (*Viewer, error) {
	v := FromContext(ctx)
	if v == nil {
		return nil, domain.Errorf(domain.CodeUnauthenticated, "authentication required")
	}
	return v, nil
}

// RequireAdmin returns the viewer in ctx if they are a tenant admin, or
// UNAUTHENTICATED (no viewer) or FORBIDDEN.
func RequireAdmin(ctx context.Context) (*Viewer, error) {
	return requireRole(ctx, (*Viewer).IsAdmin, "admin role required")
}

// RequireCurator returns the viewer in ctx if they may administer
// knowledge (admins and agents), or UNAUTHENTICATED (no viewer) or
// FORBIDDEN.
func RequireCurator(ctx context.Context) (*Viewer, error) {
	return requireRole(ctx, (*Viewer).CanCurateKnowledge, "admin or agent role required")
}

// requireRole returns the viewer in ctx if has says they hold the role, or
// UNAUTHENTICATED (no viewer) or FORBIDDEN with message.
func requireRole(ctx context.Context, has func(*Viewer) bool, message string) (*Viewer, error) {
	v, err := Require(ctx)
	if err != nil {
		return nil, err
	}
	if !has(v) {
		return nil, domain.Errorf(domain.CodeForbidden, "%s", message)
	}
	return v, nil
}
