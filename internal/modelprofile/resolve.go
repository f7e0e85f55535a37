package modelprofile

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/modelprofile"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Level is what one level of the precedence chooses: a profile (nil: none
// here) and parameters (nil fields: none here).
type Level struct {
	ProfileID *uuid.UUID
	Params    domain.ModelParameters
}

// Choice is a model call's request: the ask's level, then the
// conversation's. TenantMaxAnswerTokens bounds maxAnswerTokens where the
// profile sets no maximum (0: no bound).
type Choice struct {
	Ask                   Level
	Conversation          Level
	TenantMaxAnswerTokens int
	// Tenant is what the caller already read of the tenant's enabled
	// profiles (TenantProfilesColumn), in the transaction it resolves in;
	// TenantUnknown makes the resolver read it when it needs it.
	Tenant TenantProfiles
}

// The input field names the refusals carry in extensions.field.
const (
	FieldProfile         = "modelProfileId"
	FieldTemperature     = "modelParameters.temperature"
	FieldTopP            = "modelParameters.topP"
	FieldMaxAnswerTokens = "modelParameters.maxAnswerTokens"
)

// Resolve returns the model the viewer in ctx answers with, by the
// precedence ask > conversation > tenant default > server default
// (docs/API.md, "Model profiles"):
//   - the profile is the ask's, else the conversation's, else the
//     tenant's default (the enabled is_default profile the viewer may use,
//     else the first such profile by name), else, when the tenant has no
//     enabled profile at all, the server's model;
//   - each parameter is the ask's, else the conversation's, else the
//     profile's default.
//
// A profile the viewer may not use (unknown, another tenant's, disabled,
// closed to their groups) is BAD_USER_INPUT with extensions.field
// "modelProfileId", and so is a tenant whose profiles are all closed to
// the viewer. A parameter outside the profile's bounds is BAD_USER_INPUT
// naming it (e.g. "modelParameters.temperature"); nothing is clamped.
func (s *Service) Resolve(ctx context.Context, ch Choice) (Resolved, error) {
	return s.ResolveIn(ctx, s.client, ch)
}

// ResolveIn is Resolve reading through c: the client of the caller's open
// transaction, so that an ask that resolves inside its transaction needs
// no second connection (with the pool's connections all held by such asks,
// waiting for one deadlocked them).
func (s *Service) ResolveIn(ctx context.Context, c *ent.Client, ch Choice) (Resolved, error) {
	params := ch.Ask.Params.Over(ch.Conversation.Params)
	id := ch.Ask.ProfileID
	if id == nil {
		id = ch.Conversation.ProfileID
	}
	var p *ent.ModelProfile
	if id != nil {
		got, err := c.ModelProfile.Query().
			Where(modelprofile.ID(*id), modelprofile.Enabled(true)).
			Only(ctx)
		switch {
		case ent.IsNotFound(err):
			return Resolved{}, notAvailable(FieldProfile)
		case err != nil:
			return Resolved{}, store.DomainError(err, "model profile")
		}
		p = got
	} else {
		def, err := s.tenantDefault(ctx, c, ch.Tenant)
		if err != nil {
			return Resolved{}, err
		}
		if def == nil {
			return s.serverDefault(params, ch.TenantMaxAnswerTokens)
		}
		p = def
	}
	m, ok := s.endpoints[p.Endpoint]
	if !ok {
		return Resolved{}, domain.Errorf(domain.CodeModelUnavailable, "the model profile's endpoint %q is not configured on this server", p.Endpoint)
	}
	full, err := withinProfile(p, params, ch.TenantMaxAnswerTokens)
	if err != nil {
		return Resolved{}, err
	}
	return resolvedOf(p, full, m), nil
}

// Recorded returns the model of what an attempt recorded (profile id and
// parameters) without re-checking who may use it: a retry of the reaper
// or a resumed answer keeps its model. A nil or vanished profile is the
// server default with params.
func (s *Service) Recorded(ctx context.Context, tenantID string, id *uuid.UUID, params domain.ModelParameters) (Resolved, error) {
	if id == nil {
		return Resolved{Endpoint: DefaultEndpoint, Params: params, LLM: s.endpoints[DefaultEndpoint]}, nil
	}
	p, err := s.ByID(ctx, tenantID, *id)
	if err != nil {
		return Resolved{}, err
	}
	if p == nil {
		return Resolved{Endpoint: DefaultEndpoint, Params: params, LLM: s.endpoints[DefaultEndpoint]}, nil
	}
	m, ok := s.endpoints[p.Endpoint]
	if !ok {
		return Resolved{}, domain.Errorf(domain.CodeModelUnavailable, "the model profile's endpoint %q is not configured on this server", p.Endpoint)
	}
	return resolvedOf(p, params, m), nil
}

// tenantDefault returns the profile asks use when nothing names one: the
// enabled default profile the viewer may use, else the first enabled one
// by name; nil when the tenant has no enabled profile at all. A tenant
// whose enabled profiles are all closed to the viewer refuses. known is
// what the caller read of the tenant's profiles: TenantNone needs no
// statement, TenantSome one, TenantUnknown one or two.
func (s *Service) tenantDefault(ctx context.Context, c *ent.Client, known TenantProfiles) (*ent.ModelProfile, error) {
	if known == TenantNone {
		return nil, nil
	}
	ps, err := c.ModelProfile.Query().
		Where(modelprofile.Enabled(true)).
		Order(ent.Desc(modelprofile.FieldIsDefault), ent.Asc(modelprofile.FieldName)).
		Limit(1).All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "model profile")
	}
	if len(ps) == 1 {
		return ps[0], nil
	}
	if known == TenantSome {
		return nil, notAvailable(FieldProfile)
	}
	v := viewer.FromContext(ctx)
	if v == nil {
		return nil, nil
	}
	n, err := c.ModelProfile.Query().
		Where(modelprofile.TenantID(v.TenantID), modelprofile.Enabled(true)).
		Count(viewer.SystemJobContext(ctx, viewer.JobModelProfile))
	if err != nil {
		return nil, store.DomainError(err, "model profile")
	}
	if n > 0 {
		return nil, notAvailable(FieldProfile)
	}
	return nil, nil
}

// serverDefault is the model of a tenant without profiles: the server's,
// with only the parameters chosen (nothing chosen changes nothing),
// checked against the server-wide bounds.
func (s *Service) serverDefault(params domain.ModelParameters, tenantMax int) (Resolved, error) {
	b := bounds{tMin: 0, tMax: serverTemperatureMax, pMin: 0, pMax: serverTopPMax, maxTokens: tenantMax}
	if err := b.check(params); err != nil {
		return Resolved{}, err
	}
	return Resolved{Endpoint: DefaultEndpoint, Params: params, LLM: s.endpoints[DefaultEndpoint]}, nil
}

// bounds are the limits parameters are checked against.
type bounds struct {
	tMin, tMax, pMin, pMax float64
	maxTokens              int // 0: no upper bound
}

// check refuses the first parameter outside b, naming its input field.
func (b bounds) check(p domain.ModelParameters) error {
	if t := p.Temperature; t != nil && (*t < b.tMin || *t > b.tMax) {
		return outOfBounds(FieldTemperature, fmt.Sprintf("temperature %g is outside [%g, %g]", *t, b.tMin, b.tMax))
	}
	if t := p.TopP; t != nil && (*t < b.pMin || *t > b.pMax) {
		return outOfBounds(FieldTopP, fmt.Sprintf("topP %g is outside [%g, %g]", *t, b.pMin, b.pMax))
	}
	if n := p.MaxAnswerTokens; n != nil {
		if *n < 1 {
			return outOfBounds(FieldMaxAnswerTokens, fmt.Sprintf("maxAnswerTokens %d is below 1", *n))
		}
		if b.maxTokens > 0 && *n > b.maxTokens {
			return outOfBounds(FieldMaxAnswerTokens, fmt.Sprintf("maxAnswerTokens %d is above %d", *n, b.maxTokens))
		}
	}
	return nil
}

// withinProfile checks params against p's bounds and fills what they
// leave unset with p's defaults.
func withinProfile(p *ent.ModelProfile, params domain.ModelParameters, tenantMax int) (domain.ModelParameters, error) {
	maxTokens := p.MaxAnswerTokensMax
	if maxTokens == 0 {
		maxTokens = tenantMax
	}
	b := bounds{tMin: p.TemperatureMin, tMax: p.TemperatureMax, pMin: p.TopPMin, pMax: p.TopPMax, maxTokens: maxTokens}
	if err := b.check(params); err != nil {
		return domain.ModelParameters{}, err
	}
	t, tp := p.TemperatureDefault, p.TopPDefault
	def := domain.ModelParameters{Temperature: &t, TopP: &tp}
	if p.MaxAnswerTokensDefault > 0 {
		n := p.MaxAnswerTokensDefault
		def.MaxAnswerTokens = &n
	}
	return params.Over(def), nil
}

// outOfBounds is the refusal of a parameter outside its bounds.
func outOfBounds(field, msg string) error {
	return domain.Errorf(domain.CodeBadUserInput, "invalid %s: %s", field, msg).With("field", field)
}
