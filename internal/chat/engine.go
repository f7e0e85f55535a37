package chat

import (
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/store"
)

// Config tunes the engine. Zero fields take the defaults in WithDefaults.
type Config struct {
	// InstanceID names this process in attempt leases.
	InstanceID string
	// LeaseDuration is how long an attempt's lease lasts without renewal;
	// CheckpointInterval is how often a streaming attempt saves its partial
	// answer and renews its lease.
	LeaseDuration      time.Duration
	CheckpointInterval time.Duration
	// AnswerTimeout bounds one whole answer generation.
	AnswerTimeout time.Duration
	// ReaperInterval is how often RunBackground reaps expired leases and
	// PurgeInterval how often it purges past-retention data.
	ReaperInterval time.Duration
	PurgeInterval  time.Duration
	// ChatModel overrides the model's default chat model ("" = default).
	ChatModel string
	// GenerateTitles asks the model for a short title after the first
	// answer, without blocking it.
	GenerateTitles bool
	// MinEvidenceScore is the default evidence threshold (cosine
	// similarity) for tenants that set none; it depends on the embedding
	// model (default 0.2; the offline model suggests 0.1).
	MinEvidenceScore float64
	// Limits bound client input and the ask rate (limits.go).
	Limits Limits
}

// Deps are the engine's adapters.
type Deps struct {
	DB        *store.DB
	Model     llm.Model
	Broker    broker.Broker
	Retriever Retriever
	Logger    *slog.Logger
	Now       func() time.Time
	// Observer is optional.
	Observer Observer
	// AskLimiter meters asks and retries per user; nil meters nothing.
	AskLimiter AskLimiter
}

// WithDefaults fills the zero fields of c.
func (c Config) WithDefaults() Config {
	if c.InstanceID == "" {
		host, _ := os.Hostname()
		c.InstanceID = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), uuid.NewString()[:8])
	}
	if c.LeaseDuration <= 0 {
		c.LeaseDuration = 30 * time.Second
	}
	if c.CheckpointInterval <= 0 {
		c.CheckpointInterval = time.Second
	}
	if c.AnswerTimeout <= 0 {
		c.AnswerTimeout = 3 * time.Minute
	}
	if c.ReaperInterval <= 0 {
		c.ReaperInterval = 15 * time.Second
	}
	if c.PurgeInterval <= 0 {
		c.PurgeInterval = time.Hour
	}
	if c.MinEvidenceScore <= 0 {
		c.MinEvidenceScore = 0.2
	}
	c.Limits = c.Limits.withDefaults()
	return c
}

// Observer receives low-cardinality engine measurements (for Prometheus).
// Every method must be cheap and non-blocking.
type Observer interface {
	// AskAccepted counts an accepted ask or retry.
	AskAccepted(retry bool)
	// AttemptFinished reports an attempt's outcome ("completed", "refused",
	// "failed"), failure code ("" unless failed), model, time to first
	// token (0 if none) and token usage.
	AttemptFinished(outcome string, code domain.FailureCode, model string, ttft time.Duration, promptTokens, completionTokens int)
}

type nopObserver struct{}

func (nopObserver) AskAccepted(bool) {}
func (nopObserver) AttemptFinished(string, domain.FailureCode, string, time.Duration, int, int) {
}

// Engine runs conversations. It is safe for concurrent use.
type Engine struct {
	cfg    Config
	db     *store.DB
	client *ent.Client
	model  llm.Model
	broker broker.Broker
	search Retriever
	log    *slog.Logger
	now    func() time.Time
	obs    Observer

	limiter AskLimiter // nil: asks are not metered

	kbModels sync.Map // knowledge base id → embedding model

	mu      sync.Mutex
	runs    map[uuid.UUID]*run
	closing bool
	wg      sync.WaitGroup
}

// New returns an engine. Deps.DB, Model, Broker and Retriever are required.
func New(cfg Config, deps Deps) *Engine {
	e := &Engine{
		cfg: cfg.WithDefaults(), db: deps.DB, client: deps.DB.Client, model: deps.Model,
		broker: deps.Broker, search: deps.Retriever, log: deps.Logger, now: deps.Now,
		obs: deps.Observer, limiter: deps.AskLimiter, runs: map[uuid.UUID]*run{},
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	installReadAudit(e.client, e.log)
	if e.now == nil {
		e.now = time.Now
	}
	if e.obs == nil {
		e.obs = nopObserver{}
	}
	return e
}

// chatModel is the chat model requested for answers.
func (e *Engine) chatModel(st domain.TenantSettings) string {
	switch {
	case st.DefaultModel != "":
		return st.DefaultModel
	case e.cfg.ChatModel != "":
		return e.cfg.ChatModel
	default:
		return e.model.DefaultChatModel()
	}
}
