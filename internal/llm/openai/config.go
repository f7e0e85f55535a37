// Package openai is the llm.Model for OpenAI-compatible APIs (OpenAI,
// Azure OpenAI, vLLM, Ollama, LiteLLM …), built on go-openai. It streams
// answers with first-token, inter-token (idle) and whole-request timeouts,
// retries rate limits,
// 5xx answers and connection failures with backoff (only before the first
// token), and aborts the HTTP stream on Close or cancellation.
package openai

import (
	"cmp"
	"fmt"
	"net/http"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
)

// Defaults for zero Config fields.
const (
	DefaultChatModel         = "gpt-4o-mini"
	DefaultEmbeddingModel    = "text-embedding-3-small"
	DefaultTimeout           = 120 * time.Second
	DefaultFirstTokenTimeout = 30 * time.Second
	DefaultIdleTimeout       = 30 * time.Second
	DefaultMaxRetries        = 2
	DefaultRetryBaseDelay    = 500 * time.Millisecond
	DefaultMaxRetryDelay     = 20 * time.Second
	DefaultEmbeddingBatch    = 64
	DefaultAzureAPIVersion   = "2024-06-01"
)

// Config configures the adapter. Only zero-value-safe fields: every zero
// field takes its default.
type Config struct {
	// BaseURL of the API, e.g. "https://api.openai.com/v1" (the default),
	// "http://localhost:11434/v1" (Ollama) or an Azure resource endpoint.
	BaseURL string
	// APIKey may be empty for servers that need none.
	APIKey       string
	Organization string
	// APIType is "" or "openai", "azure" or "azure_ad". Azure uses the model
	// names as deployment names.
	APIType         string
	AzureAPIVersion string

	ChatModel      string
	EmbeddingModel string
	// EmbeddingBaseURL is the endpoint of the embeddings requests when
	// they go elsewhere than the chat requests (another provider, a local
	// server); empty means BaseURL.
	EmbeddingBaseURL string
	// EmbeddingAPIKey is the key sent with the embeddings requests. When
	// it is empty, APIKey is sent only if the embeddings go to the chat
	// endpoint: a key never reaches an endpoint it was not given for
	// (EmbeddingEndpoint).
	EmbeddingAPIKey string
	// EmbeddingDimensions is the "dimensions" value to ask for when
	// RequestDimensions is true (0 means domain.EmbeddingDimensions). When
	// RequestDimensions is false the field is not sent and shorter vectors
	// are zero-padded to domain.EmbeddingDimensions.
	EmbeddingDimensions int
	RequestDimensions   bool
	// EmbeddingBatchSize is the number of inputs per embeddings request.
	EmbeddingBatchSize int

	// Timeout bounds a whole request, retries and streaming included.
	Timeout time.Duration
	// FirstTokenTimeout bounds the wait for the first answer token of each
	// streaming attempt (connection and headers included).
	FirstTokenTimeout time.Duration
	// IdleTimeout bounds the silence between two answer tokens once the
	// first has arrived: a model that stalls mid-answer fails with
	// KindTimeout after it, not after the whole-request Timeout.
	IdleTimeout time.Duration
	// MaxRetries is the number of retries after the first attempt (0 means
	// DefaultMaxRetries, a negative value none). RetryBaseDelay doubles per
	// retry, with jitter, up to MaxRetryDelay; a longer Retry-After is not
	// waited for.
	MaxRetries     int
	RetryBaseDelay time.Duration
	MaxRetryDelay  time.Duration

	// UseMaxCompletionTokens sends max_completion_tokens instead of
	// max_tokens (needed by OpenAI reasoning models; most compatible servers
	// only know max_tokens).
	UseMaxCompletionTokens bool

	// HTTPClient is used for every request; nil means a new client without
	// a timeout of its own (the timeouts above apply).
	HTTPClient *http.Client
}

func (c Config) withDefaults() Config {
	c.ChatModel = cmp.Or(c.ChatModel, DefaultChatModel)
	c.EmbeddingModel = cmp.Or(c.EmbeddingModel, DefaultEmbeddingModel)
	c.EmbeddingDimensions = cmp.Or(c.EmbeddingDimensions, domain.EmbeddingDimensions)
	c.EmbeddingBatchSize = defaults.Positive(c.EmbeddingBatchSize, DefaultEmbeddingBatch)
	c.Timeout = defaults.Positive(c.Timeout, DefaultTimeout)
	c.FirstTokenTimeout = defaults.Positive(c.FirstTokenTimeout, DefaultFirstTokenTimeout)
	c.IdleTimeout = defaults.Positive(c.IdleTimeout, DefaultIdleTimeout)
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	c.RetryBaseDelay = defaults.Positive(c.RetryBaseDelay, DefaultRetryBaseDelay)
	c.MaxRetryDelay = defaults.Positive(c.MaxRetryDelay, DefaultMaxRetryDelay)
	c.AzureAPIVersion = cmp.Or(c.AzureAPIVersion, DefaultAzureAPIVersion)
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	return c
}

// DefaultBaseURL is the endpoint of an empty BaseURL.
const DefaultBaseURL = "https://api.openai.com/v1"

// EmbeddingEndpoint returns the base URL the embeddings requests go to and
// the key sent with them: EmbeddingBaseURL with EmbeddingAPIKey alone, or,
// when EmbeddingBaseURL is empty or the chat endpoint, the chat endpoint
// with EmbeddingAPIKey, else APIKey.
func (c Config) EmbeddingEndpoint() (baseURL, apiKey string) {
	chat := c.BaseURL
	chat = cmp.Or(chat, DefaultBaseURL)
	if c.EmbeddingBaseURL != "" && strings.TrimRight(c.EmbeddingBaseURL, "/") != strings.TrimRight(chat, "/") {
		return c.EmbeddingBaseURL, c.EmbeddingAPIKey
	}
	if c.EmbeddingAPIKey != "" {
		return chat, c.EmbeddingAPIKey
	}
	return chat, c.APIKey
}

// embeddingClientConfig returns the go-openai configuration of the
// embeddings requests, and false when they share the chat client's.
func (c Config) embeddingClientConfig() (goopenai.ClientConfig, bool, error) {
	base, key := c.EmbeddingEndpoint()
	if base == c.BaseURL || (c.BaseURL == "" && base == DefaultBaseURL) {
		if key == c.APIKey {
			return goopenai.ClientConfig{}, false, nil
		}
	} else {
		c.Organization = "" // another provider's
	}
	c.BaseURL, c.APIKey = base, key
	cc, err := c.clientConfig()
	return cc, err == nil, err
}

// clientConfig builds the go-openai configuration.
func (c Config) clientConfig() (goopenai.ClientConfig, error) {
	var cc goopenai.ClientConfig
	switch strings.ToLower(c.APIType) {
	case "", "openai", "open_ai":
		cc = goopenai.DefaultConfig(c.APIKey)
		if c.BaseURL != "" {
			cc.BaseURL = c.BaseURL
		}
	case "azure", "azure_ad":
		if c.BaseURL == "" {
			return cc, fmt.Errorf("openai: Azure needs BaseURL (the resource endpoint)")
		}
		cc = goopenai.DefaultAzureConfig(c.APIKey, c.BaseURL)
		cc.APIVersion = c.AzureAPIVersion
		if strings.EqualFold(c.APIType, "azure_ad") {
			cc.APIType = goopenai.APITypeAzureAD
		}
	default:
		return cc, fmt.Errorf("openai: unknown APIType %q", c.APIType)
	}
	cc.OrgID = c.Organization
	cc.HTTPClient = &doer{client: c.HTTPClient}
	return cc, nil
}

// New returns an llm.Model for an OpenAI-compatible API.
func New(cfg Config) (llm.Model, error) {
	cfg = cfg.withDefaults()
	if cfg.EmbeddingDimensions > domain.EmbeddingDimensions {
		return nil, fmt.Errorf("openai: EmbeddingDimensions %d exceeds the %d-dimension column", cfg.EmbeddingDimensions, domain.EmbeddingDimensions)
	}
	cc, err := cfg.clientConfig()
	if err != nil {
		return nil, err
	}
	m := &Model{cfg: cfg, client: goopenai.NewClientWithConfig(cc), sleep: sleepCtx}
	m.embedder = m.client
	ecc, separate, err := cfg.embeddingClientConfig()
	if err != nil {
		return nil, fmt.Errorf("openai embeddings: %w", err)
	}
	if separate {
		m.embedder = goopenai.NewClientWithConfig(ecc)
	}
	return m, nil
}
