package chat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/admission"
	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/authwatch"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/chat/history"
	"github.com/ragchat/ragchat/internal/chat/summary"
	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/quota"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tracing"
)

// Config tunes the engine. Zero fields take the defaults in WithDefaults;
// docs/ENGINE.md ("Leases, the reaper and restarts") explains how the
// durations relate, and Validate checks it.
type Config struct {
	// InstanceID names this process in attempt leases. It should be stable
	// across restarts of the same instance (so that ReclaimOwn finds what a
	// crashed life left behind) and never shared by two live processes.
	InstanceID string
	// LeaseDuration is how long an attempt's lease lasts without renewal
	// (default 6 s); CheckpointInterval is how often a streaming attempt
	// saves its partial answer and renews its lease (default 1 s).
	LeaseDuration      time.Duration
	CheckpointInterval time.Duration
	// AnswerTimeout bounds one whole answer generation.
	AnswerTimeout time.Duration
	// CompletionRetryTimeout bounds how long a finished answer is kept in
	// memory and its save retried while the database is unavailable
	// (default 60 s).
	CompletionRetryTimeout time.Duration
	// ReaperInterval is how often RunBackground reaps expired leases
	// (default 2 s) and PurgeInterval how often it purges past-retention
	// data.
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
	// ModelWindows overrides the model registry's context windows (model
	// name or name prefix → tokens; RAGCHAT_MODEL_WINDOWS). A tenant's
	// modelContextWindows override these in turn.
	ModelWindows map[string]int
	// Admission bounds the answers this instance runs at once, and the
	// asks that may wait for one (internal/admission); a zero Limit
	// admits every ask.
	Admission admission.Config
}

// Defaults of the engine's durations.
const (
	DefaultLeaseDuration          = 6 * time.Second
	DefaultCheckpointInterval     = time.Second
	DefaultReaperInterval         = 2 * time.Second
	DefaultAnswerTimeout          = 3 * time.Minute
	DefaultCompletionRetryTimeout = time.Minute
)

// Deps are the engine's adapters.
type Deps struct {
	DB        *store.DB
	Model     llm.Model
	Broker    broker.Broker
	Retriever Retriever
	// SearchAttachments makes every ask also retrieve the conversation's
	// READY attachments (internal/attachment.Search) alongside the
	// knowledge base; off, asks read the knowledge base only.
	SearchAttachments bool
	Logger            *slog.Logger
	Now               func() time.Time
	// Observer is optional.
	Observer Observer
	// AskLimiter meters asks and retries per user; nil meters nothing.
	AskLimiter askrate.Limiter
	// Access is this replica's document-access stamps, which the
	// knowledge service moves (knowledge.Options.Changes) and the engine
	// reads (sources.go); nil: the engine follows its own on Broker, which
	// nothing outside it moves.
	Access *authwatch.Access
	// Tracer traces the steps of each ask (internal/tracing/README.md);
	// nil traces nothing (a no-op tracer).
	Tracer trace.Tracer
	// Models resolves model profiles (modelchoice.go); nil answers every
	// ask with Model, as before profiles.
	Models *modelprofile.Service
	// Pricing prices the usage ledger's entries (internal/quota); nil
	// prices every model at zero.
	Pricing quota.Pricing
	// ReconcileUsage closes the usage reservations a crash left open
	// (quota.Service.Reconcile); RunBackground runs it after each reaper
	// pass. nil: nothing reconciles them.
	ReconcileUsage func(context.Context) (int, error)
	// Feed is where the engine publishes its conversations' changes
	// (internal/feed), the one the API streams and the other services
	// publish into; nil builds one on DB and Broker.
	Feed *feed.Service
}

// WithDefaults fills the zero fields of c.
func (c Config) WithDefaults() Config {
	if c.InstanceID == "" {
		host, _ := os.Hostname()
		c.InstanceID = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), uuid.NewString()[:8])
	}
	c.LeaseDuration = defaults.Positive(c.LeaseDuration, DefaultLeaseDuration)
	c.CheckpointInterval = defaults.Positive(c.CheckpointInterval, DefaultCheckpointInterval)
	c.AnswerTimeout = defaults.Positive(c.AnswerTimeout, DefaultAnswerTimeout)
	c.CompletionRetryTimeout = defaults.Positive(c.CompletionRetryTimeout, DefaultCompletionRetryTimeout)
	c.ReaperInterval = defaults.Positive(c.ReaperInterval, DefaultReaperInterval)
	c.PurgeInterval = defaults.Positive(c.PurgeInterval, time.Hour)
	c.MinEvidenceScore = defaults.Positive(c.MinEvidenceScore, 0.2)
	c.Limits = c.Limits.withDefaults()
	return c
}

// Validate checks how the durations relate (after WithDefaults), as
// docs/ENGINE.md ("Leases, the reaper and restarts") sets them:
//   - the lease lasts at least three checkpoint intervals, so that it
//     survives two missed renewals;
//   - the reaper interval is at least two checkpoint intervals, so that
//     after a database outage a live holder renews its lease (within one
//     checkpoint interval of the database's return) before the reaper's
//     pass after the blind one (see ReapOnce) judges it;
//   - the reaper interval is shorter than the lease minus a checkpoint
//     interval, so that a reaper runs a pass during any outage long enough
//     for a live lease to expire, and so notices the outage.
func (c Config) Validate() error {
	c = c.WithDefaults()
	switch {
	case c.LeaseDuration < 3*c.CheckpointInterval:
		return fmt.Errorf("the attempt lease (%s) must be at least three checkpoint intervals (%s)", c.LeaseDuration, c.CheckpointInterval)
	case c.ReaperInterval < 2*c.CheckpointInterval:
		return fmt.Errorf("the reaper interval (%s) must be at least two checkpoint intervals (%s)", c.ReaperInterval, c.CheckpointInterval)
	case c.ReaperInterval >= c.LeaseDuration-c.CheckpointInterval:
		return fmt.Errorf("the reaper interval (%s) must be shorter than the attempt lease (%s) minus a checkpoint interval (%s)", c.ReaperInterval, c.LeaseDuration, c.CheckpointInterval)
	}
	return nil
}

// Observer receives low-cardinality engine measurements (for Prometheus).
// Every method must be cheap and non-blocking. An Observer that also
// implements history.ContextObserver times each context assembly.
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
	// feed publishes conversation and viewer events (internal/feed).
	feed   *feed.Service
	search Retriever
	// searchAttachments: Deps.SearchAttachments.
	searchAttachments bool
	log               *slog.Logger
	now               func() time.Time
	obs               Observer
	// tracer starts the ask's step spans (tracing.go); a no-op when
	// tracing is off.
	tracer trace.Tracer

	limiter askrate.Limiter // nil: asks are not metered

	profiles *modelprofile.Service // nil: no model profiles

	// kbModels remembers each knowledge base's embedding model
	// (embedcheck.go), for at most maxKBModels knowledge bases.
	kbModels *lru.Cache[uuid.UUID, string]

	// reapBlind is set when a reaper pass could not read the database; the
	// next pass then reaps nothing (see ReapOnce).
	reapBlind atomic.Bool

	// purgeJobs run after each PurgeOnce (purgejobs.go).
	purgeJobs purgeJobs

	mu      sync.Mutex
	runs    map[uuid.UUID]*run
	closing bool
	wg      sync.WaitGroup

	// outcomes keeps the rows of attempts this instance just finished,
	// for its subscribers' terminal events (outcomes.go).
	outcomes recentOutcomes

	// history assembles the answers' prompt contexts (context.go), and
	// summarizer folds their conversations' summaries (aftercompletion.go).
	history    *history.Assembler
	summarizer *summary.Summarizer

	// control follows this instance's control topic (control.go).
	control control

	// access stamps document-access changes of every replica, under which
	// re-authorised sources may be reused (sources.go).
	access *authwatch.Access

	// beforeRun, when set (by tests, under mu), runs at the start of each
	// answer's goroutine.
	beforeRun func()

	// meter writes the usage ledger and keeps the quotas (quota.go).
	meter *quota.Meter
	// reconcileUsage closes the reservations a crash left open, after
	// each reaper pass (Deps.ReconcileUsage; nil: none).
	reconcileUsage func(context.Context) (int, error)

	// gate bounds the answers running at once (admit.go).
	gate *admission.Gate
}

// New returns an engine. Deps.DB, Model, Broker and Retriever are required.
func New(cfg Config, deps Deps) *Engine {
	e := &Engine{
		cfg: cfg.WithDefaults(), db: deps.DB, client: deps.DB.Client, model: deps.Model,
		broker: deps.Broker, search: deps.Retriever, log: deps.Logger, now: deps.Now,
		obs: deps.Observer, limiter: deps.AskLimiter, profiles: deps.Models, runs: map[uuid.UUID]*run{},
		access: deps.Access, searchAttachments: deps.SearchAttachments,
		tracer: deps.Tracer, reconcileUsage: deps.ReconcileUsage, feed: deps.Feed,
	}
	if e.tracer == nil {
		e.tracer = tracing.Tracer(nil)
	}
	e.gate = admission.New(e.cfg.Admission)
	e.kbModels, _ = lru.New[uuid.UUID, string](maxKBModels)
	e.meter = quota.New(deps.DB, deps.Pricing)
	if e.log == nil {
		e.log = slog.Default()
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.obs == nil {
		e.obs = nopObserver{}
	}
	if e.feed == nil {
		e.feed = feed.New(feed.Deps{Client: e.client, Broker: e.broker, Logger: e.log, Now: e.now})
	}
	if e.access == nil {
		e.access = authwatch.NewAccess(e.broker, e.log)
	}
	e.history, e.summarizer = e.newAssembler(), e.newSummarizer()
	e.startControl()
	return e
}

// chatModel is the chat model requested for answers.
func (e *Engine) chatModel(st domain.TenantSettings) string {
	if st.DefaultModel != "" {
		return st.DefaultModel
	}
	return e.ServerChatModel()
}

// ServerChatModel is the chat model of answers for tenants that name
// none: Config.ChatModel, else the model's default.
func (e *Engine) ServerChatModel() string {
	if e.cfg.ChatModel != "" {
		return e.cfg.ChatModel
	}
	return e.model.DefaultChatModel()
}

// rollback rolls tx back and returns err, so that the original error is
// what the caller sees. Storage errors become domain errors with
// store.DomainError, the one classifier of database errors.
func rollback(tx *ent.Tx, err error) error {
	_ = tx.Rollback()
	return err
}

// traceID returns the id of ctx's trace (tracing.TraceIDOf: its span's,
// or the one the server chose for the request, tracing.WithTraceID), or,
// when ctx has none, a new random one on each call: the request's trace,
// which the messages and attempts a request creates name.
func traceID(ctx context.Context) string {
	if id, ok := tracing.TraceIDOf(ctx); ok {
		return id.String()
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
