// Package config reads ragchat's configuration from environment variables.
// Every variable is documented in docs/API.md; Load validates them all and
// reports every bad one at once. Summary describes the result for the
// startup log without secrets.
package config

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/quota"
)

// Environments.
const (
	Development = "development"
	Production  = "production"
)

// Config is the whole server configuration.
type Config struct {
	// Env is "development" or "production" (RAGCHAT_ENV).
	Env string
	// DevAllowRemote lets development mode listen on an address other
	// machines can reach (RAGCHAT_DEV_ALLOW_REMOTE; devaddr.go).
	DevAllowRemote bool
	// ModelPrices prices the usage ledger's entries (RAGCHAT_MODEL_PRICES,
	// JSON {"model":{"input":N,"output":N}} in micro-units per million
	// tokens; unset: every model costs zero).
	ModelPrices quota.StaticPricing
	// Addr is the listen address (RAGCHAT_ADDR). Port 0 picks a free port.
	Addr string
	// DataDir holds the SQLite file and the development JWT secret
	// (RAGCHAT_DATA_DIR).
	DataDir string
	// InstanceID names this process in attempt leases (RAGCHAT_INSTANCE_ID).
	// Empty means the server uses the identity persisted in DataDir
	// (docs/ENGINE.md, "Leases, the reaper and restarts").
	InstanceID string
	// DebugAddr, when set, serves net/http/pprof on this (private) address
	// (RAGCHAT_DEBUG_ADDR).
	DebugAddr string
	// LoadDemo provisions the demo tenant and knowledge base on first start
	// (RAGCHAT_LOAD_DEMO).
	LoadDemo bool

	Database Database
	Broker   Broker
	Model    Model
	Engine   Engine
	Auth     Auth
	OIDC     OIDC
	HTTP     HTTP
	Limits   Limits
	Log      Log
	// Attachments configures conversation attachments (attachments.go).
	Attachments Attachments
	// Imports configures conversation imports (imports.go).
	Imports Imports
}

// The brokers RAGCHAT_BROKER selects.
const (
	BrokerMemory   = "memory"
	BrokerPostgres = "postgres"
	BrokerNATS     = "nats"
)

// Broker configures how live stream events travel between instances
// (docs/DEPLOYMENT.md).
type Broker struct {
	// Kind is memory, postgres or nats (RAGCHAT_BROKER). The default is
	// postgres when DATABASE_URL is set, else memory.
	Kind string
	// NATSURL is the NATS server list (RAGCHAT_NATS_URL), for nats.
	NATSURL string
	// Channel is the NOTIFY channel or the NATS subject
	// (RAGCHAT_BROKER_CHANNEL); empty means the adapter's default. It
	// keeps two deployments that share a database or NATS apart.
	Channel string
	// Secret seals the frames replicas exchange over postgres or nats,
	// so that nothing else on the database or NATS reads or forges them
	// (RAGCHAT_BROKER_SECRET, at least broker.MinSecretLen characters; the
	// same on every replica). Production requires it with postgres or
	// nats; in development without it, the replicas on one database agree
	// on one generated there (internal/sharedsecret).
	Secret string
	// PreviousSecret is still accepted on receive while Secret is rotated
	// (RAGCHAT_BROKER_SECRET_PREVIOUS; docs/DEPLOYMENT.md).
	PreviousSecret string
}

// CrossReplica reports whether events travel between replicas (postgres
// or nats), so that the broker needs its secret.
func (b Broker) CrossReplica() bool { return b.Kind == BrokerPostgres || b.Kind == BrokerNATS }

// Database configures storage.
type Database struct {
	// URL is a PostgreSQL URL (DATABASE_URL); empty selects SQLite.
	URL string
	// SQLitePath is the SQLite file (RAGCHAT_SQLITE_PATH).
	SQLitePath string
	// AutoMigrate applies migrations at start (RAGCHAT_AUTO_MIGRATE).
	AutoMigrate bool
	// Pool settings (RAGCHAT_DB_*).
	MaxOpenConns    int
	MaxIdleConns    int
	ConnMaxLifetime time.Duration
	ConnMaxIdleTime time.Duration
	WaitTimeout     time.Duration
}

// Model selects the language model: OpenAI-compatible when any OPENAI_*
// variable is set, else the built-in offline model (OpenAIConfig,
// openai.go).
type Model struct {
	OpenAI              bool
	BaseURL             string
	APIKey              string
	ChatModel           string
	EmbeddingModel      string
	EmbeddingDimensions int
	// EmbeddingBaseURL and EmbeddingAPIKey send the embeddings elsewhere
	// than the chat requests (OPENAI_EMBEDDING_BASE_URL, default
	// OPENAI_BASE_URL; OPENAI_EMBEDDING_API_KEY, default OPENAI_API_KEY
	// only on the chat endpoint).
	EmbeddingBaseURL string
	EmbeddingAPIKey  string
	// OfflineTokenDelay paces the offline model's tokens
	// (RAGCHAT_OFFLINE_TOKEN_DELAY; negative streams without pause).
	OfflineTokenDelay time.Duration
	// Limits bounds the OpenAI-compatible model's requests.
	Limits ModelLimits
}

// Auth configures JWT verification. Exactly one key source is used:
// HS256Secret, PublicKeyPEM or JWKSURL. In development with none
// configured, DevSecretFile holds a generated HS256 secret.
type Auth struct {
	HS256Secret   string
	PublicKeyPEM  string
	JWKSURL       string
	Issuer        string
	Audience      string
	DevSecretFile string
	// DevTokenTTL is the lifetime of tokens printed in development.
	DevTokenTTL time.Duration
}

// HTTP configures the server's transports.
type HTTP struct {
	// AllowedOrigins are the browser origins allowed for CORS and
	// WebSocket upgrades ("*" matches one run of characters, e.g.
	// "http://localhost:*"). Same-origin requests and requests without an
	// Origin header (non-browser clients) are always allowed.
	AllowedOrigins []string
	// TrustedProxies are the reverse proxies whose X-Forwarded-For and
	// X-Real-IP name the client (RAGCHAT_TRUSTED_PROXIES, proxies.go).
	TrustedProxies []netip.Prefix
	// Introspection and GraphiQL are on in development and off in
	// production unless set.
	Introspection bool
	GraphiQL      bool
	// Metrics serves Prometheus metrics at /metrics.
	Metrics bool
	// WSInitTimeout bounds the wait for connection_init; WSKeepAlive is the
	// keep-alive / ping interval.
	WSInitTimeout time.Duration
	WSKeepAlive   time.Duration
	// SSEKeepAlive is the comment-ping interval of SSE streams.
	SSEKeepAlive time.Duration
	// DeltaWindow coalesces answer deltas sent to subscribers: the first
	// goes out at once, the following ones are merged, and two DELTA
	// events are at least this far apart (0 sends every delta as it
	// comes). See DeltaBudget.
	DeltaWindow time.Duration
	// DeltaBudget is the latency budget of coalesced deltas: merged text
	// waits for a batch of 128 bytes, but never longer than this.
	DeltaBudget time.Duration
	// ShutdownTimeout bounds graceful shutdown.
	ShutdownTimeout time.Duration
	// ReadHeaderTimeout bounds reading request headers.
	ReadHeaderTimeout time.Duration
}

// Limits bounds what one client can ask of the server.
type Limits struct {
	MaxBodyBytes         int
	MaxWSMessageBytes    int
	MaxComplexity        int
	MaxDepth             int
	MaxPageSize          int
	MaxAliases           int
	MaxBatch             int
	MaxSubscriptionsConn int
	MaxQuestionRunes     int
	MaxCommentRunes      int
	MaxDocumentBytes     int
	// AskRatePerMinute and AskBurst are the per-user ask limits of tenants
	// whose settings set none.
	AskRatePerMinute float64
	AskBurst         int
	// APQCacheSize is the number of persisted queries kept in memory, in
	// front of the shared table.
	APQCacheSize int
	// PersistedQueriesMax bounds the shared table of persisted queries
	// (least recently used out first).
	PersistedQueriesMax int
	// PersistedManifest is the path of a trusted documents manifest in
	// Apollo's or Relay's format ("" for none).
	PersistedManifest string
	// PersistedOnly refuses every document not in PersistedManifest.
	PersistedOnly bool
}

// Log configures logging. Message text (questions, answers, snippets) is
// never logged.
type Log struct {
	// Level is debug, info, warn or error.
	Level string
}

// IsDevelopment reports whether c runs in development mode.
func (c Config) IsDevelopment() bool { return c.Env == Development }

// Load reads the configuration from the process environment.
func Load() (Config, error) { return LoadFrom(os.LookupEnv) }

// LoadFrom reads the configuration through lookup (os.LookupEnv in
// production, a map in tests).
func LoadFrom(lookup func(string) (string, bool)) (Config, error) {
	e := &env{lookup: lookup}
	c := Config{Env: strings.ToLower(e.str("RAGCHAT_ENV", Development))}
	if c.Env != Development && c.Env != Production {
		e.fail("RAGCHAT_ENV", c.Env, "development or production")
		c.Env = Development
	}
	dev := c.IsDevelopment()
	c.Addr = e.str("RAGCHAT_ADDR", "127.0.0.1:8080")
	c.DevAllowRemote = e.boolean(DevAllowRemoteVar, false)
	if err := c.checkDevAddr(); err != nil {
		e.errs = append(e.errs, err)
	}
	c.DataDir = e.str("RAGCHAT_DATA_DIR", "./data")
	c.InstanceID = e.str("RAGCHAT_INSTANCE_ID", "")
	c.LoadDemo = e.boolean("RAGCHAT_LOAD_DEMO", true)
	c.DebugAddr = e.str("RAGCHAT_DEBUG_ADDR", "")
	c.Attachments = loadAttachments(e, c.DataDir)
	c.Imports = loadImports(e)

	c.Database = Database{
		URL:             e.str("DATABASE_URL", ""),
		SQLitePath:      e.str("RAGCHAT_SQLITE_PATH", filepath.Join(c.DataDir, "ragchat.db")),
		AutoMigrate:     e.boolean("RAGCHAT_AUTO_MIGRATE", true),
		MaxOpenConns:    e.integer("RAGCHAT_DB_MAX_OPEN_CONNS", 20, 1),
		MaxIdleConns:    e.integer("RAGCHAT_DB_MAX_IDLE_CONNS", 10, 0),
		ConnMaxLifetime: e.duration("RAGCHAT_DB_CONN_MAX_LIFETIME", 30*time.Minute, false),
		ConnMaxIdleTime: e.duration("RAGCHAT_DB_CONN_MAX_IDLE_TIME", 5*time.Minute, false),
		WaitTimeout:     e.duration("RAGCHAT_DB_WAIT_TIMEOUT", 30*time.Second, false),
	}

	c.Model = Model{
		OpenAI: e.set("OPENAI_BASE_URL") || e.set("OPENAI_API_KEY") || e.set("OPENAI_CHAT_MODEL") ||
			e.set("OPENAI_EMBEDDING_MODEL") || e.set("OPENAI_EMBEDDING_DIMENSIONS") ||
			e.set("OPENAI_EMBEDDING_BASE_URL") || e.set("OPENAI_EMBEDDING_API_KEY"),
		BaseURL:             e.str("OPENAI_BASE_URL", ""),
		APIKey:              e.str("OPENAI_API_KEY", ""),
		ChatModel:           e.str("OPENAI_CHAT_MODEL", ""),
		EmbeddingModel:      e.str("OPENAI_EMBEDDING_MODEL", ""),
		EmbeddingDimensions: e.integer("OPENAI_EMBEDDING_DIMENSIONS", 0, 0),
		EmbeddingBaseURL:    e.str("OPENAI_EMBEDDING_BASE_URL", ""),
		EmbeddingAPIKey:     e.str("OPENAI_EMBEDDING_API_KEY", ""),
		OfflineTokenDelay:   e.duration("RAGCHAT_OFFLINE_TOKEN_DELAY", 0, true),
	}
	c.Engine, c.Model.Limits = loadEngine(e)

	defaultBroker := BrokerMemory
	if c.Database.URL != "" {
		defaultBroker = BrokerPostgres
	}
	c.Broker = Broker{
		Kind:           strings.ToLower(e.str("RAGCHAT_BROKER", defaultBroker)),
		NATSURL:        e.str("RAGCHAT_NATS_URL", ""),
		Channel:        e.str("RAGCHAT_BROKER_CHANNEL", ""),
		Secret:         e.str("RAGCHAT_BROKER_SECRET", ""),
		PreviousSecret: e.str("RAGCHAT_BROKER_SECRET_PREVIOUS", ""),
	}
	switch c.Broker.Kind {
	case BrokerMemory:
	case BrokerPostgres:
		if c.Database.URL == "" {
			e.fail("RAGCHAT_BROKER", c.Broker.Kind, "memory or nats without DATABASE_URL (postgres needs it)")
		}
	case BrokerNATS:
		if c.Broker.NATSURL == "" {
			e.errs = append(e.errs, fmt.Errorf("RAGCHAT_BROKER=nats needs RAGCHAT_NATS_URL"))
		}
	default:
		e.fail("RAGCHAT_BROKER", c.Broker.Kind, "memory, postgres or nats")
	}
	e.errs = append(e.errs, c.checkBrokerSecret()...)

	c.Auth = Auth{
		HS256Secret:   e.str("RAGCHAT_JWT_HS256_SECRET", ""),
		PublicKeyPEM:  e.str("RAGCHAT_JWT_PUBLIC_KEY", ""),
		JWKSURL:       e.str("RAGCHAT_JWT_JWKS_URL", ""),
		Issuer:        e.str("RAGCHAT_JWT_ISSUER", ""),
		Audience:      e.str("RAGCHAT_JWT_AUDIENCE", ""),
		DevSecretFile: e.str("RAGCHAT_JWT_DEV_SECRET_FILE", filepath.Join(c.DataDir, "jwt-dev-secret")),
		DevTokenTTL:   e.duration("RAGCHAT_DEV_TOKEN_TTL", 24*time.Hour, false),
	}
	if path := e.str("RAGCHAT_JWT_PUBLIC_KEY_FILE", ""); path != "" {
		pem, err := os.ReadFile(path)
		if err != nil {
			e.errs = append(e.errs, fmt.Errorf("RAGCHAT_JWT_PUBLIC_KEY_FILE: %w", err))
		}
		c.Auth.PublicKeyPEM = string(pem)
	}

	c.OIDC = loadOIDC(e)

	defaultOrigins := []string(nil)
	if dev {
		defaultOrigins = []string{"http://localhost:*", "http://127.0.0.1:*"}
	}
	c.HTTP = HTTP{
		AllowedOrigins:    e.list("RAGCHAT_ALLOWED_ORIGINS", defaultOrigins),
		Introspection:     e.boolean("RAGCHAT_INTROSPECTION", dev),
		GraphiQL:          e.boolean("RAGCHAT_GRAPHIQL", dev),
		Metrics:           e.boolean("RAGCHAT_METRICS", true),
		WSInitTimeout:     e.duration("RAGCHAT_WS_INIT_TIMEOUT", 10*time.Second, false),
		WSKeepAlive:       e.duration("RAGCHAT_WS_KEEPALIVE", 15*time.Second, false),
		SSEKeepAlive:      e.duration("RAGCHAT_SSE_KEEPALIVE", 15*time.Second, false),
		DeltaWindow:       e.duration("RAGCHAT_DELTA_WINDOW", 40*time.Millisecond, false),
		DeltaBudget:       e.duration("RAGCHAT_DELTA_BUDGET", 400*time.Millisecond, false),
		ShutdownTimeout:   e.duration("RAGCHAT_SHUTDOWN_TIMEOUT", 30*time.Second, false),
		ReadHeaderTimeout: e.duration("RAGCHAT_READ_HEADER_TIMEOUT", 10*time.Second, false),
	}
	c.HTTP.TrustedProxies = loadTrustedProxies(e)

	c.Limits = Limits{
		MaxBodyBytes:         e.integer("RAGCHAT_MAX_BODY_BYTES", 3<<20, 1024),
		MaxWSMessageBytes:    e.integer("RAGCHAT_MAX_WS_MESSAGE_BYTES", 64<<10, 1024),
		MaxComplexity:        e.integer("RAGCHAT_MAX_COMPLEXITY", 20000, 10),
		MaxDepth:             e.integer("RAGCHAT_MAX_DEPTH", 12, 2),
		MaxPageSize:          e.integer("RAGCHAT_MAX_PAGE_SIZE", 100, 1),
		MaxAliases:           e.integer("RAGCHAT_MAX_ALIASES", 30, 0),
		MaxBatch:             e.integer("RAGCHAT_MAX_BATCH", 10, 1),
		MaxSubscriptionsConn: e.integer("RAGCHAT_MAX_SUBSCRIPTIONS_PER_CONNECTION", 20, 1),
		MaxQuestionRunes:     e.integer("RAGCHAT_MAX_QUESTION_CHARS", 4000, 1),
		MaxCommentRunes:      e.integer("RAGCHAT_MAX_COMMENT_CHARS", 2000, 1),
		MaxDocumentBytes:     e.integer("RAGCHAT_MAX_DOCUMENT_BYTES", 2<<20, 1024),
		AskRatePerMinute:     e.float("RAGCHAT_ASK_RATE_PER_MINUTE", 30),
		AskBurst:             e.integer("RAGCHAT_ASK_BURST", 10, 1),
		APQCacheSize:         e.integer("RAGCHAT_APQ_CACHE_SIZE", 1000, 1),
		PersistedQueriesMax:  e.integer("RAGCHAT_PERSISTED_QUERIES_MAX", 10000, 1),
		PersistedManifest:    e.str("RAGCHAT_PERSISTED_MANIFEST", ""),
		PersistedOnly:        e.boolean("RAGCHAT_PERSISTED_ONLY", false),
	}

	c.Log = Log{
		Level: strings.ToLower(e.str("RAGCHAT_LOG_LEVEL", "info")),
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		e.fail("RAGCHAT_LOG_LEVEL", c.Log.Level, "debug, info, warn or error")
	}
	if c.Limits.PersistedOnly && c.Limits.PersistedManifest == "" {
		e.fail("RAGCHAT_PERSISTED_ONLY", "true", "false unless RAGCHAT_PERSISTED_MANIFEST names a manifest")
	}

	if err := c.checkAuth(); err != nil {
		e.errs = append(e.errs, err)
	}
	if p, err := quota.ParsePrices(e.str("RAGCHAT_MODEL_PRICES", "")); err != nil {
		e.errs = append(e.errs, fmt.Errorf("RAGCHAT_MODEL_PRICES: %w", err))
	} else {
		c.ModelPrices = p
	}
	if err := e.err(); err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	return c, nil
}

// checkBrokerSecret validates the broker secrets: long enough when set,
// and set in production whenever events travel between replicas.
func (c Config) checkBrokerSecret() []error {
	var errs []error
	for _, v := range []struct{ name, value string }{
		{"RAGCHAT_BROKER_SECRET", c.Broker.Secret}, {"RAGCHAT_BROKER_SECRET_PREVIOUS", c.Broker.PreviousSecret},
	} {
		if v.value != "" && len(v.value) < broker.MinSecretLen {
			errs = append(errs, fmt.Errorf("%s: want at least %d characters (e.g. openssl rand -hex 32)", v.name, broker.MinSecretLen))
		}
	}
	if c.Broker.PreviousSecret != "" && c.Broker.Secret == "" {
		errs = append(errs, errors.New("RAGCHAT_BROKER_SECRET_PREVIOUS needs RAGCHAT_BROKER_SECRET"))
	}
	if c.Broker.CrossReplica() && c.Broker.Secret == "" && !c.IsDevelopment() {
		errs = append(errs, fmt.Errorf("production with RAGCHAT_BROKER=%s needs RAGCHAT_BROKER_SECRET, the same on every replica "+
			"(docs/DEPLOYMENT.md)", c.Broker.Kind))
	}
	return errs
}

// checkAuth validates the key sources: at most one, and one is required in
// production.
func (c Config) checkAuth() error {
	n := 0
	for _, set := range []bool{c.Auth.HS256Secret != "", c.Auth.PublicKeyPEM != "", c.Auth.JWKSURL != ""} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return errors.New("set only one of RAGCHAT_JWT_HS256_SECRET, RAGCHAT_JWT_PUBLIC_KEY(_FILE) and RAGCHAT_JWT_JWKS_URL")
	case n == 0 && !c.IsDevelopment():
		return errors.New("RAGCHAT_ENV=production needs a JWT key: set RAGCHAT_JWT_PUBLIC_KEY(_FILE), RAGCHAT_JWT_JWKS_URL " +
			"or RAGCHAT_JWT_HS256_SECRET (docs/DEPLOYMENT.md)")
	}
	return nil
}
