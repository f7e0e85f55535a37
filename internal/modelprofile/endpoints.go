package modelprofile

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"

	"github.com/ragchat/ragchat/internal/llm"
)

// EndpointsVariable is the environment variable that declares the
// server's extra model endpoints (docs/DEPLOYMENT.md, "Model endpoints").
const EndpointsVariable = "RAGCHAT_MODEL_ENDPOINTS"

// EndpointConfig is one server-configured OpenAI-compatible endpoint. The
// key is named by an environment variable (APIKeyEnv), so that the
// endpoint list itself holds no secret; profiles refer to the endpoint by
// name only.
type EndpointConfig struct {
	Name      string `json:"-"`
	BaseURL   string `json:"baseUrl"`
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	// APIKey is read from APIKeyEnv by ParseEndpoints.
	APIKey string `json:"-"`
}

var endpointName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// ParseEndpoints reads RAGCHAT_MODEL_ENDPOINTS, a JSON object of endpoint
// name to {"baseUrl": ..., "apiKeyEnv": ...}, through getenv. Empty
// declares none. Names are lower-case [a-z0-9_-], at most 64 bytes, and
// never "offline" or "default" (always configured).
func ParseEndpoints(getenv func(string) string) ([]EndpointConfig, error) {
	raw := getenv(EndpointsVariable)
	if raw == "" {
		return nil, nil
	}
	var m map[string]EndpointConfig
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object of endpoints: %v", EndpointsVariable, err)
	}
	out := make([]EndpointConfig, 0, len(m))
	for name, e := range m {
		switch {
		case !endpointName.MatchString(name):
			return nil, fmt.Errorf("%s: endpoint name %q is not [a-z0-9_-] of at most 64 bytes", EndpointsVariable, name)
		case name == OfflineEndpoint || name == DefaultEndpoint:
			return nil, fmt.Errorf("%s: endpoint name %q is reserved", EndpointsVariable, name)
		case e.BaseURL == "":
			return nil, fmt.Errorf("%s: endpoint %q has no baseUrl", EndpointsVariable, name)
		}
		e.Name = name
		if e.APIKeyEnv != "" {
			e.APIKey = getenv(e.APIKeyEnv)
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Endpoints is the set of model clients by endpoint name, built once at
// the root of the process (cmd/ragchat, the test harnesses).
type Endpoints map[string]llm.Model

// NewEndpoints returns the endpoints with the server's own model as
// "default" and the offline model as "offline", plus extra.
func NewEndpoints(serverModel, offlineModel llm.Model, extra map[string]llm.Model) Endpoints {
	e := Endpoints{DefaultEndpoint: serverModel, OfflineEndpoint: offlineModel}
	for k, v := range extra {
		e[k] = v
	}
	return e
}

// Names returns the configured endpoint names, sorted.
func (e Endpoints) Names() []string {
	out := make([]string, 0, len(e))
	for k := range e {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
