// Package modelprofile is the one resolver of which model answers
// (docs/API.md, "Model profiles"; internal/modelprofile/README.md). A
// tenant's admins keep model profiles (an endpoint configured on the
// server, a model name on it, its context window, bounds and defaults of
// the sampling parameters, prices); members use the enabled ones open to
// their groups. Resolve applies the precedence ask > conversation >
// tenant default > server default, validates the parameters against the
// profile's bounds (never clamping) and returns what a model call needs:
// the llm.Model of the endpoint, the model name, the window, the resolved
// parameters and the prices the usage ledger charges.
package modelprofile

import (
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
)

// OfflineEndpoint is the endpoint name of the built-in offline model,
// always configured.
const OfflineEndpoint = "offline"

// DefaultEndpoint names the server's own model (the OPENAI_* variables, or
// the offline model without them), always configured.
const DefaultEndpoint = "default"

// The server-wide bounds of parameters chosen without a profile.
const (
	serverTemperatureMax = 2.0
	serverTopPMax        = 1.0
)

// Resolved is the model one call uses. ProfileID is nil when the tenant has
// no profile to use, and the server's model answers as before profiles.
type Resolved struct {
	ProfileID *uuid.UUID
	// Name is the profile's name ("" for the server default).
	Name string
	// Endpoint is the server-configured endpoint's name.
	Endpoint string
	// Model is the model name sent to the endpoint; "" means the
	// endpoint's (or the engine's) default chat model.
	Model string
	// Window is the profile's context window in tokens; 0 means the
	// model registry's.
	Window int
	// Params are the sampling parameters, every field set when a profile
	// resolved (MaxAnswerTokens nil: the tenant's maxAnswerTokens).
	Params domain.ModelParameters
	// PriceInputPerM and PriceOutputPerM are the prices of 1M prompt and
	// completion tokens in micro-units (0 without a profile).
	PriceInputPerM  int64
	PriceOutputPerM int64
	// LLM is the endpoint's client.
	LLM llm.Model
}

// Cost returns the cost in micro-units of promptTokens and
// completionTokens at r's prices, rounded up to the next micro-unit.
func (r Resolved) Cost(promptTokens, completionTokens int) int64 {
	n := int64(promptTokens)*r.PriceInputPerM + int64(completionTokens)*r.PriceOutputPerM
	return (n + 999_999) / 1_000_000
}

// Temperature is the resolved temperature as the llm request carries it
// (0 when none is chosen: the endpoint's default).
func (r Resolved) Temperature() float32 {
	if r.Params.Temperature == nil {
		return 0
	}
	return float32(*r.Params.Temperature)
}

// resolvedOf returns the Resolved form of profile p with params.
func resolvedOf(p *ent.ModelProfile, params domain.ModelParameters, m llm.Model) Resolved {
	id := p.ID
	return Resolved{
		ProfileID: &id, Name: p.Name, Endpoint: p.Endpoint, Model: p.Model, Window: p.ContextWindow,
		Params: params, PriceInputPerM: p.PriceInputPerM, PriceOutputPerM: p.PriceOutputPerM, LLM: m,
	}
}
