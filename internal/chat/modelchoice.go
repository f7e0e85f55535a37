package chat

import (
	"context"
	"maps"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/quota"
)

// Model profiles (docs/API.md, "Model profiles"): every model call of an
// answer (the rewrite and the answer itself) goes through the one
// resolver, internal/modelprofile. An ask, edit, reask or retry resolves
// its choice (AskInput.Model, RetryInput.Model, over the conversation's,
// over the tenant default) before it writes anything, and its attempt records the profile
// and the resolved parameters; the run then answers with what the attempt
// recorded (modelOf), so that a resumed or reaped attempt keeps its model.
// Without Deps.Models the engine answers with Deps.Model as before.

// resolveModel resolves the model of a new attempt of conv for the viewer
// in ctx, the request's choice over the conversation's over the tenant's.
// It refuses (BAD_USER_INPUT naming the field) before anything is
// written. Without profiles it resolves nothing (nil).
func (e *Engine) resolveModel(ctx context.Context, conv *ent.Conversation, st domain.TenantSettings, choice modelprofile.Level) (*modelprofile.Resolved, error) {
	return e.resolveModelIn(ctx, e.client, conv, st, modelprofile.TenantUnknown, choice)
}

// resolveModelIn is resolveModel reading through c (an open transaction's
// client: the ask's, which must not wait for a second connection), with
// what the caller read of the tenant's profiles (tp).
func (e *Engine) resolveModelIn(ctx context.Context, c *ent.Client, conv *ent.Conversation, st domain.TenantSettings, tp modelprofile.TenantProfiles, choice modelprofile.Level) (*modelprofile.Resolved, error) {
	if e.profiles == nil {
		return nil, nil
	}
	r, err := e.profiles.ResolveIn(ctx, c, modelprofile.Choice{
		Ask:                   choice,
		Conversation:          modelprofile.Level{ProfileID: conv.ModelProfileID, Params: conv.ModelParameters},
		TenantMaxAnswerTokens: st.MaxAnswerTokens,
		Tenant:                tp,
	})
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// recordModel sets on c the profile and parameters r resolved (nil:
// none).
func recordModel(c *ent.AttemptCreate, r *modelprofile.Resolved) *ent.AttemptCreate {
	if r == nil {
		return c
	}
	c.SetNillableModelProfileID(r.ProfileID)
	if !r.Params.IsZero() {
		c.SetModelParameters(r.Params)
	}
	return c
}

// checkConversationModel validates a new conversation's choice (as an ask
// naming it would be refused: the same errors) before it is created.
func (e *Engine) checkConversationModel(ctx context.Context, in CreateConversationInput, st domain.TenantSettings) error {
	if in.ModelProfileID == nil && in.ModelParameters.IsZero() {
		return nil
	}
	if e.profiles == nil {
		return domain.Errorf(domain.CodeBadUserInput, "this server offers no model profiles").With("field", modelprofile.FieldProfile)
	}
	_, err := e.profiles.Resolve(ctx, modelprofile.Choice{
		Ask:                   modelprofile.Level{ProfileID: in.ModelProfileID, Params: in.ModelParameters},
		TenantMaxAnswerTokens: st.MaxAnswerTokens,
	})
	return err
}

// answerModel is what an answer's model calls use.
type answerModel struct {
	llm      llm.Model
	model    string // "" → the engine's chat model
	params   domain.ModelParameters
	settings domain.TenantSettings // with the profile's window and answer cap
	// charge is what the attempt's calls are metered with: the tenant,
	// user and attempt, the model its side calls name, the profile's
	// name and prices, and the quota (zero without an attempt).
	charge quota.Charge
}

// modelOf returns the model j's attempt recorded, falling back to the
// engine's model (no profile, or profiles off). The profile's window goes
// into the settings' model windows, and the answer cap into
// maxAnswerTokens, so that the budget split uses them.
func (e *Engine) modelOf(ctx context.Context, j job) answerModel {
	am := answerModel{llm: e.model, model: e.chatModel(j.settings), settings: j.settings}
	if j.att == nil {
		return am
	}
	am.charge = quota.Charge{TenantID: j.conv.TenantID, UserID: j.conv.UserID, AttemptID: j.att.ID, Model: am.model, Quota: j.settings.Quota()}
	if e.profiles == nil {
		return am
	}
	r, err := e.profiles.Recorded(ctx, j.conv.TenantID, j.att.ModelProfileID, j.att.ModelParameters)
	if err != nil {
		e.log.WarnContext(ctx, "model profile not read; answering with the server model", "attempt", j.att.ID, "err", err)
		return am
	}
	am.params = r.Params
	if r.ProfileID != nil {
		am.llm, am.model = r.LLM, r.Model
		am.charge = am.charge.Profiled(r)
	}
	st := j.settings
	if r.Window > 0 && am.model != "" {
		st.ModelContextWindows = maps.Clone(st.ModelContextWindows)
		if st.ModelContextWindows == nil {
			st.ModelContextWindows = map[string]int{}
		}
		st.ModelContextWindows[am.model] = r.Window
	}
	st.MaxAnswerTokens = answerCap(st, r.Params)
	am.settings = st
	return am
}

// chatRequest applies am's parameters to req.
func (am answerModel) chatRequest(req llm.ChatRequest) llm.ChatRequest {
	if t := am.params.Temperature; t != nil {
		req.Temperature = float32(*t)
	}
	if p := am.params.TopP; p != nil {
		req.TopP = float32(*p)
	}
	return req
}
