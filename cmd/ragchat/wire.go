package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/attachmentsetup"
	"github.com/ragchat/ragchat/internal/authwatch"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/docwatch"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/feedback"
	"github.com/ragchat/ragchat/internal/fork"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/llm/openai"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/organise"
	"github.com/ragchat/ragchat/internal/quota"
	"github.com/ragchat/ragchat/internal/server"
	"github.com/ragchat/ragchat/internal/sharing"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/support"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/tracing"
)

// openDB opens the configured database, migrating when configured, and
// installs the interceptors of its client, once, here where the client is
// opened (server.InstallInterceptors: the read audit and the source
// collector); log receives their failures.
func openDB(ctx context.Context, cfg config.Config, log *slog.Logger, migrate bool) (*store.DB, error) {
	db, err := store.Open(ctx, store.Config{
		DatabaseURL:     cfg.Database.URL,
		SQLitePath:      cfg.Database.SQLitePath,
		MaxOpenConns:    cfg.Database.MaxOpenConns,
		MaxIdleConns:    cfg.Database.MaxIdleConns,
		ConnMaxLifetime: cfg.Database.ConnMaxLifetime,
		ConnMaxIdleTime: cfg.Database.ConnMaxIdleTime,
		WaitTimeout:     cfg.Database.WaitTimeout,
		Migrate:         migrate,
	})
	if err != nil {
		return nil, err
	}
	server.InstallInterceptors(db.Client, log)
	return db, nil
}

// newModel returns the OpenAI-compatible model when any OPENAI_* variable
// is set, else the offline model.
func newModel(cfg config.Config) (llm.Model, error) {
	if !cfg.Model.OpenAI {
		return offline.New(offline.Options{TokenDelay: cfg.Model.OfflineTokenDelay}), nil
	}
	m, err := openai.New(cfg.Model.Limits.OpenAI(cfg.Model.OpenAIConfig()))
	if err != nil {
		return nil, fmt.Errorf("openai model: %w", err)
	}
	return m, nil
}

// core is the storage, model, engine and services of a process.
type core struct {
	db        *store.DB
	model     llm.Model
	broker    broker.Broker
	engine    *chat.Engine
	feed      *feed.Service // the engine, organise and attachments publish into it
	support   *support.Service
	settings  *tenantsettings.Service
	knowledge *knowledge.Service
	organise  *organise.Service
	// usage serves the quotas and the usage ledger; the engine's reaper
	// runs its reconciliation.
	usage *quota.Service
	// docChanges broadcasts this process's document changes to the open
	// streams of every replica (internal/docwatch).
	docChanges *docwatch.Publisher
	models     *modelprofile.Service
	// sharing runs share links, its reads metered by the database limiter
	// every replica shares.
	sharing *sharing.Service
	// feedback records ratings of answers.
	feedback *feedback.Service
	// forks copies conversation paths.
	forks *fork.Service
	// access is this replica's document-access stamps, which the
	// knowledge service moves and the engine and the API read.
	access *authwatch.Access
}

// newCore wires the engine, delegated support access, the tenant settings,
// the quotas and usage ledger and the knowledge service on db; the engine
// leases attempts to cfg.InstanceID (empty: a random id) and reports asks
// and attempts to obs (nil: nowhere) and traces asks with tp (nil: no
// traces).
func newCore(ctx context.Context, cfg config.Config, db *store.DB, log *slog.Logger, obs chat.Observer, tp trace.TracerProvider) (*core, error) {
	model, err := newModel(cfg)
	if err != nil {
		return nil, err
	}
	ecfg := cfg.Engine.Chat(cfg.InstanceID)
	ecfg.GenerateTitles = true
	b, err := newBroker(ctx, cfg, db.Client, ecfg.InstanceID, log)
	if err != nil {
		return nil, err
	}
	minScore := 0.0 // the engine's default for real embedding models
	if !cfg.Model.OpenAI {
		minScore = offline.SuggestedMinEvidenceScore
	}
	ecfg.MinEvidenceScore = minScore
	models, err := newModelProfiles(cfg, db, model, os.Getenv)
	if err != nil {
		return nil, err
	}
	ecfg.Limits = engineLimits(cfg)
	if err := ecfg.Validate(); err != nil {
		return nil, err
	}
	docChanges := docwatch.NewPublisher(b, docwatch.Options{Logger: log})
	access := authwatch.NewAccess(b, log)
	usage := quota.NewService(db, quota.Options{Pricing: cfg.ModelPrices, Profiles: models, Logger: log, Now: time.Now, Lease: ecfg.WithDefaults().LeaseDuration})
	feeds := feed.New(feed.Deps{Client: db.Client, Broker: b, Logger: log, Now: time.Now})
	engine := chat.New(ecfg, chat.Deps{
		DB:                db,
		Model:             model,
		Broker:            b,
		Retriever:         knowledge.NewRetriever(db, knowledge.RetrieverOptions{}),
		SearchAttachments: true,
		Logger:            log,
		Now:               time.Now,
		Observer:          obs,
		AskLimiter:        askrate.NewDBLimiter(db, time.Now),
		Access:            access,
		Tracer:            tracing.Tracer(tp),
		Models:            models,
		Pricing:           cfg.ModelPrices,
		ReconcileUsage:    usage.Reconcile,
		Feed:              feeds,
	})
	svc := knowledge.NewService(db.Client, model, nil, knowledge.Options{MaxDocumentBytes: cfg.Limits.MaxDocumentBytes, Changes: access, Documents: docChanges})
	return &core{
		db: db, model: model, broker: b, engine: engine, feed: feeds, docChanges: docChanges,
		support:   support.New(db.Client, support.Options{Now: time.Now, Logger: log, ReasonChars: cfg.Limits.MaxCommentRunes}),
		settings:  tenantsettings.New(db.Client, engine.ServerChatModel()),
		knowledge: svc,
		organise:  organise.New(db.Client, feeds, organise.Options{Now: time.Now}),
		usage:     usage,
		models:    models,
		sharing:   sharing.New(db.Client, sharing.Options{Logger: log, Limiter: askrate.NewDBLimiter(db, time.Now)}),
		feedback:  feedback.New(db.Client, feedback.Options{CommentChars: cfg.Limits.MaxCommentRunes, Now: time.Now}),
		forks:     fork.New(db.Client, feeds, time.Now),
		access:    access,
	}, nil
}

// newAttachments starts the attachment service of cfg (its processing
// pool; the server's Shutdown stops it): states go to the feed's
// streams (internal/feed), chunks are embedded with the engine's model, and the engine's
// purge sweeps orphan blobs.
func (c *core) newAttachments(cfg config.Attachments, log *slog.Logger) (*attachment.Service, error) {
	svc, err := attachmentsetup.New(c.db, cfg, attachmentsetup.Deps{Notify: c.feed.AttachmentChanged, Embedder: c.model, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("attachments: %w", err)
	}
	c.engine.AddPurgeJob(svc.SweepOrphans)
	return svc, nil
}

// engineLimits are the engine's input and ask-rate limits from cfg.
func engineLimits(cfg config.Config) chat.Limits {
	return chat.Limits{
		QuestionChars:    cfg.Limits.MaxQuestionRunes,
		CommentChars:     cfg.Limits.MaxCommentRunes,
		AskRatePerMinute: cfg.Limits.AskRatePerMinute,
		AskBurst:         cfg.Limits.AskBurst,
	}
}

// close releases the broker and the database.
func (c *core) close() {
	c.docChanges.Close()
	_ = c.broker.Close()
	_ = c.db.Close()
}

// newModelProfiles returns the model profile service with the server's
// model as endpoint "default", the offline model as "offline" and one
// OpenAI-compatible client per endpoint of RAGCHAT_MODEL_ENDPOINTS
// (docs/DEPLOYMENT.md, "Model endpoints"), each created once here.
func newModelProfiles(cfg config.Config, db *store.DB, model llm.Model, getenv func(string) string) (*modelprofile.Service, error) {
	eps, err := modelprofile.ParseEndpoints(getenv)
	if err != nil {
		return nil, err
	}
	off := model
	if cfg.Model.OpenAI {
		off = offline.New(offline.Options{TokenDelay: cfg.Model.OfflineTokenDelay})
	}
	extra := map[string]llm.Model{}
	for _, ep := range eps {
		m, err := openai.New(cfg.Model.Limits.OpenAI(openai.Config{
			BaseURL: ep.BaseURL, APIKey: ep.APIKey,
			EmbeddingModel: cfg.Model.EmbeddingModel, EmbeddingDimensions: cfg.Model.EmbeddingDimensions,
			RequestDimensions: cfg.Model.EmbeddingDimensions > 0,
		}))
		if err != nil {
			return nil, fmt.Errorf("model endpoint %s: %w", ep.Name, err)
		}
		extra[ep.Name] = m
	}
	return modelprofile.New(db.Client, modelprofile.NewEndpoints(model, off, extra)), nil
}
