package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/modelprofile"
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
