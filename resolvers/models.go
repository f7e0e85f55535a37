package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Models is the model profile service (*modelprofile.Service): it decides
// who may manage and use profiles (docs/API.md, "Model profiles").
type Models interface {
	Available(ctx context.Context) ([]*ent.ModelProfile, error)
	List(ctx context.Context) ([]*ent.ModelProfile, error)
	Endpoints(ctx context.Context) ([]string, error)
	Create(ctx context.Context, in modelprofile.Input) (*ent.ModelProfile, error)
	Update(ctx context.Context, id uuid.UUID, in modelprofile.Input) (*ent.ModelProfile, error)
	Delete(ctx context.Context, id uuid.UUID) (uuid.UUID, error)
}

var _ Models = (*modelprofile.Service)(nil)

// modelsUnavailable is the error of the model operations on a server
// without profiles.
func modelsUnavailable() error {
	return domain.Errorf(domain.CodeUnavailable, "model profiles are not configured on this server")
}

// availableModels lists the profiles the viewer may choose; none without
// the service.
func (r *Resolver) availableModels(ctx context.Context) ([]*ent.ModelProfile, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	if r.models == nil {
		return []*ent.ModelProfile{}, nil
	}
	return r.models.Available(ctx)
}

// modelProfiles lists every profile to an admin (the service decides the
// role); none without the service.
func (r *Resolver) modelProfiles(ctx context.Context) ([]*ent.ModelProfile, error) {
	if r.models == nil {
		return []*ent.ModelProfile{}, nil
	}
	return r.models.List(ctx)
}

// modelEndpoints lists the configured endpoint names to an admin (the
// service decides the role); none without the service.
func (r *Resolver) modelEndpoints(ctx context.Context) ([]string, error) {
	if r.models == nil {
		return []string{}, nil
	}
	return r.models.Endpoints(ctx)
}

func (r *Resolver) createModelProfile(ctx context.Context, in model.ModelProfileInput) (*ent.ModelProfile, error) {
	if r.models == nil {
		return nil, modelsUnavailable()
	}
	return r.models.Create(ctx, profileInput(in))
}

func (r *Resolver) updateModelProfile(ctx context.Context, id uuid.UUID, in model.ModelProfileInput) (*ent.ModelProfile, error) {
	if r.models == nil {
		return nil, modelsUnavailable()
	}
	return r.models.Update(ctx, id, profileInput(in))
}

func (r *Resolver) deleteModelProfile(ctx context.Context, id uuid.UUID) (*model.DeleteModelProfilePayload, error) {
	if r.models == nil {
		return nil, modelsUnavailable()
	}
	got, err := r.models.Delete(ctx, id)
	if err != nil {
		return nil, err
	}
	return &model.DeleteModelProfilePayload{DeletedModelProfileID: got}, nil
}

// attemptModelProfile is the profile an attempt recorded, as the viewer
// may see it now (nil when none, deleted, or closed to the viewer).
func (r *Resolver) attemptModelProfile(ctx context.Context, att *ent.Attempt) (*ent.ModelProfile, error) {
	if att.ModelProfileID == nil {
		return nil, nil
	}
	p, err := r.client.ModelProfile.Get(ctx, *att.ModelProfileID)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return p, err
}

// attemptParameters is the parameters an attempt recorded (nil: none).
func attemptParameters(att *ent.Attempt) *domain.ModelParameters {
	if att.ModelParameters.IsZero() {
		return nil
	}
	p := att.ModelParameters
	return &p
}

// modelChoice is an ask's or retry's model choice for the engine
// (chat.AskInput.Model, chat.RetryInput.Model).
func modelChoice(id *uuid.UUID, params *domain.ModelParameters) modelprofile.Level {
	l := modelprofile.Level{ProfileID: id}
	if params != nil {
		l.Params = *params
	}
	return l
}

// profileInput is the service's form of the GraphQL input.
func profileInput(in model.ModelProfileInput) modelprofile.Input {
	out := modelprofile.Input{
		Name: in.Name, Endpoint: in.Endpoint, Model: in.Model, ContextWindow: in.ContextWindow,
		TemperatureMin: in.TemperatureMin, TemperatureMax: in.TemperatureMax, TemperatureDefault: in.TemperatureDefault,
		TopPMin: in.TopPMin, TopPMax: in.TopPMax, TopPDefault: in.TopPDefault,
		MaxAnswerTokensMax: in.MaxAnswerTokensMax, MaxAnswerTokensDefault: in.MaxAnswerTokensDefault,
		PriceInputPerM: in.PriceInputPerM, PriceOutputPerM: in.PriceOutputPerM,
		Enabled: in.Enabled, IsDefault: in.IsDefault,
	}
	if in.AllowedGroups != nil {
		g := append([]string{}, in.AllowedGroups...)
		out.AllowedGroups = &g
	}
	return out
}
