package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/portability"
)

// Portability exports and imports conversations (*portability.Service).
type Portability interface {
	ExportConversation(ctx context.Context, id uuid.UUID, f portability.Format) (*portability.Export, error)
	Import(ctx context.Context, in portability.ImportInput) ([]*ent.Conversation, error)
}

var _ Portability = (*portability.Service)(nil)

// portabilityService is the export and import service, or UNAVAILABLE
// when the server has none.
func (r *Resolver) portabilityService() (Portability, error) {
	if r.portability == nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "export and import are not available")
	}
	return r.portability, nil
}
