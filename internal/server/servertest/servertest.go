// Package servertest starts ragchat's full HTTP handler in-process on a
// throwaway database, with the offline model, the real engine and the demo
// knowledge base, for tests that need every transport but not a separate
// process (goroutine accounting, statement counting).
package servertest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/attachmentsetup"
	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/authwatch"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/docwatch"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/feedback"
	"github.com/ragchat/ragchat/internal/fork"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/organise"
	"github.com/ragchat/ragchat/internal/portability"
	"github.com/ragchat/ragchat/internal/quota"
	"github.com/ragchat/ragchat/internal/server"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/sharing"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/support"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/tracing"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Secret is the HS256 secret test servers verify tokens with.
var Secret = []byte("servertest-secret-0123456789abcdef0123456789")

// BrokerSecret seals the frames of the harnesses' PostgreSQL brokers, so
// that servers started on one database exchange live events.
var BrokerSecret = []byte("servertest-broker-secret-0123456789abcdef")

// Options tune Start.
type Options struct {
	// Config edits the server configuration (development defaults).
	Config func(*config.Config)
	// Driver wraps the Ent driver (e.g. to count statements).
	Driver func(dialect.Driver) dialect.Driver
	// Model replaces the offline model (token delay 1ms by default).
	Model llm.Model
	// Endpoints are extra model endpoints by name, for model profiles
	// (internal/modelprofile); "default" is Model and "offline" the
	// offline model, always.
	Endpoints map[string]llm.Model
	// Log receives the server's and the engine's JSON logs (default:
	// discarded).
	Log io.Writer
	// Beside, when set, makes this server another instance of the same
	// deployment: it shares Beside's database and broker (as the
	// distributed brokers do between processes) and has its own instance
	// id. Driver and the backend argument of Start are then ignored.
	Beside *Harness
	// PostgresBroker gives the instance a PostgreSQL LISTEN/NOTIFY broker
	// of its own on the test database, as a separate process has, instead
	// of the in-process broker; with Beside, Beside must have one too. It
	// needs the PostgreSQL backend.
	PostgresBroker bool
	// Broker configures the in-process broker, or the local broker inside
	// the PostgreSQL one (not with Beside, which shares its broker).
	Broker broker.MemoryOptions
	// DocumentChangeInterval is the shortest time between two document-
	// change broadcasts of one tenant (docwatch.DefaultInterval when 0).
	DocumentChangeInterval time.Duration
	// TracerProvider traces the server's operations and the engine's asks
	// (nil: no traces).
	TracerProvider trace.TracerProvider
	// GenerateTitles has the engine title conversations with the model
	// after their first answer, as cmd/ragchat does.
	GenerateTitles bool
}

// Harness is a running in-process server.
type Harness struct {
	URL    string
	DB     *store.DB
	Engine *chat.Engine
	// Feed is the feed the engine and the services publish into.
	Feed      *feed.Service
	Knowledge *knowledge.Service
	Server    *server.Server
	Config    config.Config
	Issuer    *auth.Issuer
	// DocumentChanges is this instance's document-change publisher.
	DocumentChanges *docwatch.Publisher

	httpServer *httptest.Server
	broker     broker.Broker
	ownBroker  bool   // close the broker with the server (not when shared)
	dsn        string // the PostgreSQL database, if any (for PostgresBroker)
	viewers    *authwatch.Viewers
	bgCancel   context.CancelFunc
	bgDone     chan struct{}
}

// Start runs a server on backend b with the demo tenant loaded. It is shut
// down when t ends.
func Start(t testing.TB, b testdb.Backend, o Options) *Harness {
	t.Helper()
	if o.Beside != nil {
		if o.PostgresBroker {
			return start(t, o, o.Beside.DB, postgresBroker(t, o.Beside.dsn, o.Broker), true, o.Beside.dsn)
		}
		return start(t, o, o.Beside.DB, o.Beside.broker, false, o.Beside.dsn)
	}
	db := storetest.Open(t, b)
	if o.Driver != nil {
		drv := o.Driver(entsql.OpenDB(db.Dialect, db.SQL))
		db = &store.DB{Client: store.NewClient(drv, db.Dialect), SQL: db.SQL, Dialect: db.Dialect, Session: db.Session}
	}
	// The harness opened the client: its interceptors are installed here,
	// once (an instance Beside shares them).
	server.InstallInterceptors(db.Client, server.NewLogger(logOutput(o), "debug"))
	pg := ""
	if b.Name == "postgres" {
		pg = b.DSN
	}
	var br broker.Broker = broker.NewMemory(o.Broker)
	if o.PostgresBroker {
		br = postgresBroker(t, pg, o.Broker)
	}
	return start(t, o, db, br, true, pg)
}

// logOutput is where o sends the server's and the engine's logs.
func logOutput(o Options) io.Writer {
	if o.Log == nil {
		return io.Discard
	}
	return o.Log
}

// postgresBroker opens a LISTEN/NOTIFY broker on the database dsn.
func postgresBroker(t testing.TB, dsn string, local broker.MemoryOptions) broker.Broker {
	t.Helper()
	if dsn == "" {
		t.Fatal("servertest: PostgresBroker needs the postgres backend")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	br, err := broker.NewPostgres(ctx, dsn, broker.PostgresOptions{
		Options:      broker.Options{Instance: "servertest", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Secret: BrokerSecret, Memory: local},
		MinReconnect: 20 * time.Millisecond, MaxReconnect: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("servertest: postgres broker: %v", err)
	}
	return br
}

// start runs a server on db and br; ownBroker closes br with the server.
func start(t testing.TB, o Options, db *store.DB, br broker.Broker, ownBroker bool, dsn string) *Harness {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.LoadFrom(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatalf("servertest: config: %v", err)
	}
	cfg.Auth.HS256Secret = string(Secret)
	cfg.HTTP.WSKeepAlive = 5 * time.Second
	cfg.HTTP.ShutdownTimeout = 10 * time.Second
	cfg.Attachments.BlobDir = t.TempDir()
	if o.Config != nil {
		o.Config(&cfg)
	}
	model := o.Model
	if model == nil {
		model = offline.New(offline.Options{TokenDelay: time.Millisecond})
	}
	log := server.NewLogger(logOutput(o), "debug")
	metrics := server.NewMetrics()
	docChanges := docwatch.NewPublisher(br, docwatch.Options{Logger: log, Interval: o.DocumentChangeInterval})
	access := authwatch.NewAccess(br, log)
	feeds := feed.New(feed.Deps{Client: db.Client, Broker: br, Logger: log, Now: time.Now})
	models := modelprofile.New(db.Client, modelprofile.NewEndpoints(model, offline.New(offline.Options{TokenDelay: time.Millisecond}), o.Endpoints))
	// Wired as cmd/ragchat wires it (its newCore): the engine's reaper
	// reconciles the service's ledger.
	usage := quota.NewService(db, quota.Options{Profiles: models, Logger: log, Now: time.Now, Lease: chat.Config{}.WithDefaults().LeaseDuration})
	engine := chat.New(chat.Config{InstanceID: "servertest-" + uuid.NewString()[:8], GenerateTitles: o.GenerateTitles, Limits: chat.Limits{
		QuestionChars:    cfg.Limits.MaxQuestionRunes,
		CommentChars:     cfg.Limits.MaxCommentRunes,
		AskRatePerMinute: cfg.Limits.AskRatePerMinute,
		AskBurst:         cfg.Limits.AskBurst,
	}}, chat.Deps{
		DB: db, Model: model, Broker: br,
		Retriever:         knowledge.NewRetriever(db, knowledge.RetrieverOptions{}),
		SearchAttachments: true,
		Logger:            log, Now: time.Now, Observer: metrics,
		AskLimiter:     askrate.NewDBLimiter(db, time.Now),
		Access:         access,
		Tracer:         tracing.Tracer(o.TracerProvider),
		Models:         models,
		ReconcileUsage: usage.Reconcile,
		Feed:           feeds,
	})
	svc := knowledge.NewService(db.Client, model, nil, knowledge.Options{MaxDocumentBytes: cfg.Limits.MaxDocumentBytes, Changes: access, Documents: docChanges})
	if _, err := knowledge.LoadDemo(ctx, db.Client, svc); err != nil {
		t.Fatalf("servertest: load demo: %v", err)
	}
	verifier, err := auth.NewVerifier(auth.Config{HS256Secret: Secret})
	if err != nil {
		t.Fatalf("servertest: verifier: %v", err)
	}
	viewers := authwatch.StartViewers(br, log, 0)
	grants := support.New(db.Client, support.Options{Now: time.Now, Logger: log, ReasonChars: cfg.Limits.MaxCommentRunes})
	settings := tenantsettings.New(db.Client, engine.ServerChatModel())
	// Wired as cmd/ragchat wires them (its core.newAttachments).
	attachments, err := attachmentsetup.New(db, cfg.Attachments, attachmentsetup.Deps{Notify: feeds.AttachmentChanged, Embedder: model, Logger: log})
	if err != nil {
		t.Fatalf("servertest: attachments: %v", err)
	}
	engine.AddPurgeJob(attachments.SweepOrphans)
	srv, err := server.New(server.Options{
		Config: cfg, DB: db, Engine: engine, Feed: feeds, Knowledge: server.KnowledgeService(svc),
		Attachments: attachments,
		Verifier:    verifier, Logger: log, Metrics: metrics, Viewers: viewers,
		Support: grants, TenantSettings: settings,
		Organise:       organise.New(db.Client, feeds, organise.Options{Now: time.Now}),
		Usage:          usage,
		Portability:    portability.New(db.Client, feeds, cfg.Imports.Portability(askrate.NewDBLimiter(db, time.Now))),
		TracerProvider: o.TracerProvider,
		Models:         models,
		Feedback:       feedback.New(db.Client, feedback.Options{CommentChars: cfg.Limits.MaxCommentRunes}),
		Forks:          fork.New(db.Client, feeds, time.Now),
		Access:         access,
		Sharing:        sharing.New(db.Client, sharing.Options{Logger: log, Limiter: askrate.NewDBLimiter(db, time.Now)}),
	})
	if err != nil {
		t.Fatalf("servertest: server: %v", err)
	}
	metrics.WatchCaches(db, verifier, engine, srv, viewers)
	hs := httptest.NewServer(srv.Handler())
	bgCtx, bgCancel := context.WithCancel(context.Background())
	h := &Harness{
		URL: hs.URL + "/graphql", DB: db, Engine: engine, Feed: feeds, Knowledge: svc, Server: srv, Config: cfg,
		Issuer: auth.NewDevIssuer(Secret, ""), httpServer: hs, broker: br, ownBroker: ownBroker, dsn: dsn, viewers: viewers,
		bgCancel: bgCancel, bgDone: make(chan struct{}), DocumentChanges: docChanges,
	}
	go func() {
		defer close(h.bgDone)
		engine.RunBackground(bgCtx)
	}()
	t.Cleanup(h.close)
	return h
}

// close stops the server, the engine and the broker.
func (h *Harness) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = h.Server.Shutdown(ctx)
	h.httpServer.CloseClientConnections()
	h.httpServer.Close()
	h.bgCancel()
	<-h.bgDone
	h.viewers.Close()
	h.DocumentChanges.Close()
	if h.ownBroker {
		_ = h.broker.Close()
	}
}

// Token mints a token for user of tenant with roles and groups.
func (h *Harness) Token(t testing.TB, tenant, user string, roles []string, groups ...string) string {
	t.Helper()
	tok, err := h.Issuer.Mint(auth.Claims{Tenant: tenant, Roles: roles, Groups: groups,
		RegisteredClaims: jwt.RegisteredClaims{Subject: user}}, time.Hour)
	if err != nil {
		t.Fatalf("servertest: mint: %v", err)
	}
	return tok
}

// TokenIssuedAt mints a token for user of tenant with roles and groups
// that was issued at iat (which must not be in the future), for tests of
// what a later token supersedes.
func (h *Harness) TokenIssuedAt(t testing.TB, tenant, user string, iat time.Time, roles []string, groups ...string) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, auth.Claims{Tenant: tenant, Roles: roles, Groups: groups,
		RegisteredClaims: jwt.RegisteredClaims{Subject: user, IssuedAt: jwt.NewNumericDate(iat), ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))}}).
		SignedString(Secret)
	if err != nil {
		t.Fatalf("servertest: sign: %v", err)
	}
	return tok
}

// Client returns a GraphQL client acting as user (member) of the demo
// tenant, or with the given roles.
func (h *Harness) Client(t testing.TB, user string, roles ...string) *gqlclient.Client {
	if len(roles) == 0 {
		roles = []string{"member"}
	}
	return gqlclient.New(h.URL, h.Token(t, "demo", user, roles))
}

// SetTenantSettings edits the stored settings of tenant (as the
// provisioning job), e.g. to lift the ask rate limit for a test that asks
// many questions.
func (h *Harness) SetTenantSettings(t testing.TB, tenant string, edit func(*domain.TenantSettings)) {
	t.Helper()
	ctx := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	tn, err := h.DB.Client.Tenant.Get(ctx, tenant)
	if err != nil {
		t.Fatalf("servertest: tenant %s: %v", tenant, err)
	}
	s := tn.Settings
	edit(&s)
	if err := h.DB.Client.Tenant.UpdateOneID(tenant).SetSettings(s).Exec(ctx); err != nil {
		t.Fatalf("servertest: update tenant %s: %v", tenant, err)
	}
}
