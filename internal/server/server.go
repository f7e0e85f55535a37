// Package server is ragchat's HTTP server: the GraphQL endpoint with its
// transports (graphql-transport-ws and legacy graphql-ws over gorilla
// WebSockets, graphql-sse, POST and GET), JWT authentication, CORS and the
// WebSocket Origin allow-list, limits (body and message size, query shape,
// batches, subscriptions per connection), typed errors,
// structured logs with trace ids, Prometheus metrics, health checks and
// graceful shutdown. Limits on questions, comments and the ask rate belong
// to the conversation engine (chat.Limits), which the server only wires.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/rs/cors"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragchat/ragchat/internal/authwatch"
	"github.com/ragchat/ragchat/internal/cachesize"
	"github.com/ragchat/ragchat/internal/clientaddr"
	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tracing"
	"github.com/ragchat/ragchat/internal/webui"
	"github.com/ragchat/ragchat/resolvers"
)

// Engine is the conversation engine as the server sees it: what the
// resolvers use, plus Shutdown (finish or interrupt running attempts).
type Engine interface {
	resolvers.Engine
	Shutdown(ctx context.Context) error
}

// Options are the server's dependencies.
type Options struct {
	Config config.Config
	DB     *store.DB
	Engine Engine
	// Feed streams conversation and viewer events (feed.New, in the
	// composition root, the one the engine, organise and attachments
	// publish into); required.
	Feed resolvers.Feed
	// Support runs delegated support access (support.New on DB).
	Support resolvers.Support
	// TenantSettings serves the tenant settings (tenantsettings.New on
	// DB).
	TenantSettings resolvers.TenantSettings
	// Knowledge serves the knowledge mutations; nil makes them UNAVAILABLE.
	Knowledge resolvers.Knowledge
	// Organise organises conversations (organise.New on DB, notifying
	// through Feed); nil makes its operations UNAVAILABLE.
	Organise resolvers.Organise
	// Usage serves the quotas and the usage ledger (quota.NewService on
	// DB, whose Reconcile the engine's reaper runs); required.
	Usage    resolvers.Usage
	Verifier TokenVerifier
	Logger   *slog.Logger
	// Portability exports and imports conversations (portability.New on
	// DB and Engine); nil makes them UNAVAILABLE.
	Portability Portability
	// Metrics nil creates a fresh set.
	Metrics *Metrics
	// Console configures the web console served at / (internal/webui).
	Console webui.Options
	// Sharing runs share links (sharing.New on DB, in the composition
	// root, its reads metered by the database rate limiter every instance
	// shares); nil makes them UNAVAILABLE.
	Sharing resolvers.Sharing
	// Models manages the tenant's model profiles (modelprofile.New on DB,
	// the engine's Deps.Models); nil offers none.
	Models resolvers.Models
	// Viewers, when set, ends the subscriptions opened with a token once
	// a newer token of the same user with other roles or groups is seen
	// on any replica (authwatch.StartViewers on the deployment's broker).
	Viewers *authwatch.Viewers
	// TracerProvider traces each GraphQL operation (docs/API.md,
	// "Traces"); nil traces nothing (a no-op tracer). Pass the engine a
	// tracer of the same provider (chat.Deps.Tracer).
	TracerProvider trace.TracerProvider
	// Attachments runs conversation attachments (attachmentsetup.New, in
	// the composition root); required. Shutdown stops its processing
	// pool.
	Attachments Attachments
	// Feedback records ratings of answers (feedback.New on DB); nil makes
	// submitFeedback UNAVAILABLE.
	Feedback resolvers.Feedback
	// Forks copies conversation paths (fork.New on DB and Feed); nil
	// makes forkConversation UNAVAILABLE.
	Forks resolvers.Forks
	// Access is this replica's document-access stamps (the engine's
	// Deps.Access), under which the API reuses re-authorised sources;
	// nil re-authorises them on every use.
	Access *authwatch.Access
}

// Server serves the API. Build it with New, run it with Serve and stop it
// with Shutdown.
type Server struct {
	cfg      config.Config
	log      *slog.Logger
	verifier TokenVerifier
	metrics  *Metrics
	engine   Engine
	viewers  *authwatch.Viewers
	tracer   trace.Tracer
	ws       *gorillaWebsocket
	subs     *subscriptionGate
	draining atomic.Bool
	handler  http.Handler
	http     *http.Server
	// caches report the sizes of the server's own caches (caches.go).
	caches []func() cachesize.Size
	// attachments is the attachment service's processing pool, which
	// Shutdown stops (nil: none to stop).
	attachments attachmentsShutdown
}

// New builds the server and its handler.
func New(o Options) (*Server, error) {
	if o.DB == nil || o.Engine == nil || o.Support == nil || o.TenantSettings == nil || o.Usage == nil || o.Verifier == nil {
		return nil, errors.New("server: DB, Engine, Support, TenantSettings, Usage and Verifier are required")
	}
	o.Logger = defaults.Logger(o.Logger)
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
	if o.Viewers != nil {
		o.Verifier = noticingVerifier{TokenVerifier: o.Verifier, viewers: o.Viewers}
	}
	origins := newOriginPolicy(o.Config.HTTP.AllowedOrigins)
	s := &Server{
		cfg:      o.Config,
		log:      o.Logger,
		verifier: o.Verifier,
		metrics:  o.Metrics,
		engine:   o.Engine,
		viewers:  o.Viewers,
		tracer:   tracing.Tracer(o.TracerProvider),
		ws:       newGorillaWebsocket(origins, o.Metrics),
		subs:     newSubscriptionGate(o.Config.Limits.MaxSubscriptionsConn, o.Metrics),
	}
	if o.Attachments == nil {
		return nil, errors.New("server: Options.Attachments is required (attachmentsetup.New)")
	}
	if o.Feed == nil {
		return nil, errors.New("server: Options.Feed is required (feed.New)")
	}
	s.attachments, _ = o.Attachments.(attachmentsShutdown)
	res := resolvers.New(resolvers.Deps{
		Client:         o.DB.Client,
		NodeType:       o.DB.NodeType,
		Engine:         o.Engine,
		Feed:           o.Feed,
		Support:        o.Support,
		TenantSettings: o.TenantSettings,
		Knowledge:      o.Knowledge,
		Organise:       o.Organise,
		Usage:          o.Usage,
		Sharing:        o.Sharing,
		Portability:    o.Portability,
		Models:         o.Models,
		Attachments:    o.Attachments,
		Feedback:       o.Feedback,
		Forks:          o.Forks,
		Access:         accessStamps(o.Access),
		Subscriptions:  s.subs,
		DeliverAttempt: newDeltaPolicy(o.Config.HTTP.DeltaWindow, o.Config.HTTP.DeltaBudget).deliver,
		Limits: resolvers.Limits{
			MaxNodes: o.Config.Limits.MaxPageSize,
		},
	})
	ops, err := persistedOperations(o.Config, o.DB.Client, o.Logger)
	if err != nil {
		return nil, err
	}
	gql := s.graphQLHandler(res, ops)

	var api http.Handler = gql
	api = bodyLimits(o.Config.Limits.MaxBodyBytes, o.Config.Limits.MaxBatch, o.Config.Attachments.MaxUploadBytes, api)
	api = markGET(api)
	api = authenticate(o.Verifier, api)
	clients := clientaddr.New(o.Config.HTTP.TrustedProxies)
	api = clients.Middleware(api)
	api = originGuard(origins, api)
	withCORS := cors.New(cors.Options{
		AllowOriginFunc:  origins.allowed,
		AllowedMethods:   []string{http.MethodGet, http.MethodPost, http.MethodOptions},
		AllowedHeaders:   []string{"Authorization", "Content-Type", "Accept", "traceparent", "tracestate"},
		ExposedHeaders:   []string{"Trace-Id"},
		AllowCredentials: false,
		MaxAge:           600,
	}).Handler
	api = withCORS(api)

	mux := http.NewServeMux()
	mux.Handle("/graphql", api)
	mux.Handle("/files", withCORS(originGuard(origins, clients.Middleware(authenticate(o.Verifier,
		filesHandler(o.Attachments, o.Config.Attachments.MaxUploadBytes))))))
	mux.Handle("/export/conversations.jsonl", withCORS(authenticate(o.Verifier, onlyGET(bulkExport(o.Portability, o.Logger)))))
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("GET /readyz", readyz(o.DB.SQL, &s.draining))
	if o.Config.HTTP.Metrics {
		mux.Handle("GET /metrics", o.Metrics.Handler())
	}
	console := o.Console
	console.GraphiQL = o.Config.HTTP.GraphiQL
	mux.Handle("/", webui.New(console))
	s.handler = accessLog(o.Logger, mux)
	s.http = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: o.Config.HTTP.ReadHeaderTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
	}
	return s, nil
}

// Handler is the server's whole HTTP handler (for tests with httptest).
func (s *Server) Handler() http.Handler { return s.handler }

// Metrics returns the server's metrics (the engine's hook reports to it).
func (s *Server) Metrics() *Metrics { return s.metrics }

// Serve accepts connections on ln until Shutdown. It returns nil after a
// graceful shutdown.
func (s *Server) Serve(ln net.Listener) error {
	err := s.http.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops the server gracefully within ctx's deadline: it marks the
// instance not ready and refuses new mutations and subscriptions, closes
// the listeners, lets running attempts finish (the engine marks the rest
// INTERRUPTED), cancels the processing of attachments (left for another
// instance or the next start to take over), ends every subscription
// (gqlgen does not, #2610), closes WebSocket connections with 1012 so
// that clients reconnect elsewhere, and waits for in-flight requests.
func (s *Server) Shutdown(ctx context.Context) error {
	s.draining.Store(true)
	httpDone := make(chan error, 1)
	go func() { httpDone <- s.http.Shutdown(ctx) }()
	var errs []error
	if err := s.engine.Shutdown(ctx); err != nil {
		errs = append(errs, err)
	}
	if s.attachments != nil {
		if err := s.attachments.Shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	s.subs.cancelAll(ctx)
	s.ws.closeAll()
	select {
	case err := <-httpDone:
		if err != nil {
			errs = append(errs, err)
		}
	case <-ctx.Done():
		errs = append(errs, ctx.Err())
	}
	if len(errs) > 0 {
		_ = s.http.Close()
	}
	return errors.Join(errs...)
}

// originGuard refuses WebSocket upgrades from browser origins outside the
// allow-list with 403 before they reach the upgrader (which checks again).
func originGuard(p *originPolicy, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" && !p.checkWebSocket(r) {
			writeGraphQLError(w, http.StatusForbidden, domain.CodeForbidden, "origin not allowed", nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// accessStamps is a as the resolvers take it: nil stays nil.
func accessStamps(a *authwatch.Access) resolvers.AccessStamps {
	if a == nil {
		return nil
	}
	return a
}
