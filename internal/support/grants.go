package support

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// ConversationGrants lists the grants on a conversation the viewer
// may see, newest first: all of them for its owner and admins, their own
// for a support agent, none for anyone else.
func (s *Service) ConversationGrants(ctx context.Context, conversationID uuid.UUID) ([]*ent.SupportGrant, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	gs, err := s.client.SupportGrant.Query().
		Where(supportgrant.ConversationID(conversationID)).
		Order(ent.Desc(supportgrant.FieldCreatedAt), ent.Desc(supportgrant.FieldID)).
		All(ctx)
	if err != nil {
		return nil, store.DomainError(err, grantKind)
	}
	return gs, nil
}

// State is g's effective state by the service's clock: its status, or
// EXPIRED for a PENDING or APPROVED grant past expires_at.
func (s *Service) State(g *ent.SupportGrant) string { return grantState(g, s.now()) }

// grantState is State at now.
func grantState(g *ent.SupportGrant, now time.Time) string {
	if (g.Status == supportgrant.StatusPENDING || g.Status == supportgrant.StatusAPPROVED) && !now.Before(g.ExpiresAt) {
		return "EXPIRED"
	}
	return g.Status.String()
}

// liveGrant returns the viewer (viewer.Require) and loads a grant they may
// see that has not expired. An expired grant is NOT_FOUND, like one that
// does not exist.
func (s *Service) liveGrant(ctx context.Context, id uuid.UUID) (*viewer.Viewer, *ent.SupportGrant, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, nil, err
	}
	g, err := s.client.SupportGrant.Get(ctx, id)
	if err != nil {
		return nil, nil, store.DomainError(err, grantKind)
	}
	if grantState(g, s.now()) == "EXPIRED" {
		return nil, nil, domain.NotFound(grantKind)
	}
	return v, g, nil
}
