package config

import (
	"net/url"

	"github.com/ragchat/ragchat/internal/llm/openai"
)

// OpenAIConfig returns the OpenAI-compatible model's endpoints, keys and
// models (the OPENAI_* variables). Embeddings may use an endpoint of their
// own (OPENAI_EMBEDDING_BASE_URL, OPENAI_EMBEDDING_API_KEY);
// openai.Config.EmbeddingEndpoint says which key goes where. Limits
// (ModelLimits.OpenAI) adds the timeouts and retries.
func (m Model) OpenAIConfig() openai.Config {
	return openai.Config{
		BaseURL:             m.BaseURL,
		APIKey:              m.APIKey,
		ChatModel:           m.ChatModel,
		EmbeddingModel:      m.EmbeddingModel,
		EmbeddingBaseURL:    m.EmbeddingBaseURL,
		EmbeddingAPIKey:     m.EmbeddingAPIKey,
		EmbeddingDimensions: m.EmbeddingDimensions,
		RequestDimensions:   m.EmbeddingDimensions > 0,
	}
}

// endpointForLog returns an endpoint URL without what may hold a
// credential: its user information and its query.
func endpointForLog(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(unparseable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
