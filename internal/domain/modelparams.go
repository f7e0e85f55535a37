package domain

// ModelParameters are the sampling parameters of one model call
// (docs/API.md, "Model profiles"). A nil field means "not chosen here":
// the next level of the precedence (ask, conversation, the profile's
// default) decides it.
type ModelParameters struct {
	Temperature     *float64 `json:"temperature,omitempty"`
	TopP            *float64 `json:"topP,omitempty"`
	MaxAnswerTokens *int     `json:"maxAnswerTokens,omitempty"`
}

// IsZero reports whether p chooses nothing.
func (p ModelParameters) IsZero() bool {
	return p.Temperature == nil && p.TopP == nil && p.MaxAnswerTokens == nil
}

// Over returns p with every field p leaves nil taken from base: p wins.
func (p ModelParameters) Over(base ModelParameters) ModelParameters {
	if p.Temperature == nil {
		p.Temperature = base.Temperature
	}
	if p.TopP == nil {
		p.TopP = base.TopP
	}
	if p.MaxAnswerTokens == nil {
		p.MaxAnswerTokens = base.MaxAnswerTokens
	}
	return p
}
