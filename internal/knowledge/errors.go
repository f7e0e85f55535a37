package knowledge

import (
	"context"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// errCurator is returned to viewers who may not write knowledge.
func errCurator(action string) *domain.Error {
	return domain.Errorf(domain.CodeForbidden, "only admins and agents may %s", action)
}

// requireCurator fails with FORBIDDEN unless the viewer in ctx may write
// knowledge. The privacy policies enforce the same rule; checking first
// spares a member's request the embedding work.
func requireCurator(ctx context.Context, action string) (*viewer.Viewer, error) {
	v := viewer.FromContext(ctx)
	if v == nil {
		return nil, domain.Errorf(domain.CodeUnauthenticated, "sign in to %s", action)
	}
	if !v.CanCurateKnowledge() {
		return nil, errCurator(action)
	}
	return v, nil
}
