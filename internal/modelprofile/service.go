package modelprofile

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/modelprofile"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Service manages a tenant's model profiles and resolves which one a model
// call uses. It is safe for concurrent use.
type Service struct {
	client    *ent.Client
	endpoints Endpoints
}

// New returns the service over client with the configured endpoints
// (NewEndpoints; "default" and "offline" must be present).
func New(client *ent.Client, endpoints Endpoints) *Service {
	return &Service{client: client, endpoints: endpoints}
}

// Endpoints returns the configured endpoint names, for the admin console
// (admins only: FORBIDDEN otherwise).
func (s *Service) Endpoints(ctx context.Context) ([]string, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	return s.endpoints.Names(), nil
}

// Available lists the enabled profiles the viewer in ctx may use, by name.
// An empty list means the tenant offers no choice: the server's model
// answers.
func (s *Service) Available(ctx context.Context) ([]*ent.ModelProfile, error) {
	ps, err := s.client.ModelProfile.Query().
		Where(modelprofile.Enabled(true)).
		Order(ent.Asc(modelprofile.FieldName)).
		All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "model profile")
	}
	return ps, nil
}

// List returns every profile of the tenant, disabled ones included, to
// an admin (FORBIDDEN to anyone else, who reads Available).
func (s *Service) List(ctx context.Context) ([]*ent.ModelProfile, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	ps, err := s.client.ModelProfile.Query().Order(ent.Asc(modelprofile.FieldName)).All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "model profile")
	}
	return ps, nil
}

// Get returns one profile the viewer may see: an unknown id, another
// tenant's and one the viewer may not use are the same NOT_FOUND.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*ent.ModelProfile, error) {
	p, err := s.client.ModelProfile.Get(ctx, id)
	if err != nil {
		return nil, store.DomainError(err, "model profile")
	}
	return p, nil
}

// ByID returns a profile regardless of the viewer, for what an attempt
// already recorded (an attempt keeps the profile it answered with even if
// the profile is disabled or narrowed since): nil when it is gone. The
// lookup runs under a system job of the caller's tenant, so tenantID
// bounds it.
func (s *Service) ByID(ctx context.Context, tenantID string, id uuid.UUID) (*ent.ModelProfile, error) {
	p, err := store.Optional(s.client.ModelProfile.Query().
		Where(modelprofile.ID(id), modelprofile.TenantID(tenantID)).
		Only(viewer.SystemJobContext(ctx, viewer.JobModelProfile)))
	return p, store.DomainError(err, "model profile")
}

// notAvailable is the one refusal of a profile the viewer may not use:
// unknown, another tenant's, disabled or closed to the viewer's groups
// read the same, so that none is told apart.
func notAvailable(field string) error {
	return domain.Errorf(domain.CodeBadUserInput, "the model profile is not available").With("field", field)
}

// trimName normalises a profile name.
func trimName(s string) string { return strings.TrimSpace(s) }
