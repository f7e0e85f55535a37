package server

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/ragchat/ragchat/graph"
	"github.com/ragchat/ragchat/internal/cachesize"
	"github.com/ragchat/ragchat/internal/ctxflag"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/persisted"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
	"github.com/ragchat/ragchat/resolvers"
)

// parserTokenLimit bounds the tokens of one query document, so that a huge
// query is refused before it costs parse time.
const parserTokenLimit = 15000

// graphQLHandler builds the gqlgen server with every transport added
// explicitly, in the order their Supports checks need: WebSocket
// (graphql-transport-ws served by websocketTransport, legacy graphql-ws by
// gqlgen's transport), SSE (graphql-sse, before
// POST, whose check also matches SSE requests), OPTIONS, GET (queries
// only) and POST.
func (s *Server) graphQLHandler(r *resolvers.Resolver, ops persisted.Extension) *handler.Server {
	cfg := s.cfg
	srv := handler.New(graph.NewExecutableSchema(graph.Config{Resolvers: r, Complexity: complexityRoot()}))

	readLimit := int64(cfg.Limits.MaxWSMessageBytes)
	logWSError := func(ctx context.Context, err error) {
		s.log.DebugContext(ctx, "websocket error", slog.String("error", err.Error()))
	}
	srv.AddTransport(&websocketTransport{
		impl: s.ws,
		legacy: transport.Websocket{
			InitFunc:              wsInit(s.verifier),
			InitTimeout:           cfg.HTTP.WSInitTimeout,
			KeepAlivePingInterval: cfg.HTTP.WSKeepAlive,
			PayloadReadLimit:      &readLimit,
			ErrorFunc:             logWSError,
		},
		init:        wsInit(s.verifier),
		initTimeout: cfg.HTTP.WSInitTimeout,
		keepAlive:   cfg.HTTP.WSKeepAlive,
		readLimit:   readLimit,
		// From the start of Shutdown, before the engine stops (which can
		// end a feed, and so a subscription, before the gate cancels it).
		stopping: func() bool { return s.draining.Load() || s.subs.stopCtx.Err() != nil },
		onError:  logWSError,
	})
	srv.AddTransport(transport.SSE{KeepAlivePingInterval: cfg.HTTP.SSEKeepAlive})
	srv.AddTransport(transport.Options{})
	srv.AddTransport(getTransport{})
	srv.AddTransport(postTransport{})
	// Only uploadAttachment takes an Upload; bodyLimits caps the body.
	srv.AddTransport(transport.MultipartForm{
		MaxUploadSize: int64(cfg.Attachments.MaxUploadBytes),
		MaxMemory:     1 << 20,
	})

	queries := newLRUCache[*ast.QueryDocument](queryCacheSize)
	srv.SetQueryCache(queries)
	srv.SetParserTokenLimit(parserTokenLimit)
	// First: persisted operations supply the query text of a hash or a
	// document id, and refuse unknown documents in persisted-only mode
	// before anything parses them.
	srv.Use(ops)
	// After them; before gqlgen validates.
	precheck := newDocumentPrecheck(defaultDocumentBounds)
	srv.Use(precheck)
	s.caches = append(s.caches,
		func() cachesize.Size { return queries.sizeAs("graphql_documents") },
		func() cachesize.Size { return persistedSize(ops.Cache) },
		func() cachesize.Size { return precheck.passed.sizeAs("graphql_prechecked") })
	if cfg.HTTP.Introspection {
		srv.Use(extension.Introspection{})
	} else {
		srv.SetDisableSuggestion(true)
	}
	srv.Use(pageDefaults{size: min(DefaultPageSize, cfg.Limits.MaxPageSize)})
	srv.Use(&queryLimits{
		maxComplexity: cfg.Limits.MaxComplexity,
		maxDepth:      cfg.Limits.MaxDepth,
		maxAliases:    cfg.Limits.MaxAliases,
		maxPageSize:   cfg.Limits.MaxPageSize,
	})
	srv.Use(r.OperationScope())
	srv.SetErrorPresenter(presentError(s.log))
	srv.SetRecoverFunc(recoverFunc(s.log))
	srv.AroundOperations(s.aroundOperation)
	srv.AroundRootFields(requireAuthentication)
	srv.AroundResponses(s.countErrors)
	return srv
}

// aroundOperation starts the operation's span (tracing.go), refuses
// mutations and subscriptions while draining,
// ends subscriptions whose token is superseded (holdSubscription) and
// records the operation's metrics. (The resolvers' OperationScope gives
// each operation its state.)
func (s *Server) aroundOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	op := graphql.GetOperationContext(ctx)
	kind := "unknown"
	if op != nil && op.Operation != nil {
		kind = string(op.Operation.Operation)
	}
	if overWebSocket(ctx) {
		// The connection's trace id is the upgrade request's; each
		// operation on it gets its own, or continues the trace of the
		// connection_init payload.
		ctx = operationTrace(ctx)
	}
	ctx, span := s.startOperationSpan(ctx, op, kind)
	refuse := func(code domain.Code, msg string) graphql.ResponseHandler {
		s.metrics.operations.WithLabelValues(kind, "error").Inc()
		resp := &graphql.Response{Errors: gqlerror.List{gqlErr(code, msg, nil)}}
		endOperationSpan(span, resp)
		return graphql.OneShot(resp)
	}
	if s.draining.Load() && kind != string(ast.Query) {
		return refuse(domain.CodeUnavailable, "server shutting down; retry on another instance")
	}
	ctx, tally := store.WithStatementTally(ctx)
	start := time.Now()
	var handle graphql.ResponseHandler
	subscription := kind == string(ast.Subscription)
	if subscription {
		handle = s.holdSubscription(ctx, next)
		// A subscription's span covers its start (the resolver has
		// subscribed), not its life.
		endOperationSpan(span, nil)
	} else {
		handle = next(ctx)
	}
	var first atomic.Bool
	return func(ctx context.Context) *graphql.Response {
		resp := handle(ctx)
		if resp != nil && first.CompareAndSwap(false, true) {
			if !subscription {
				endOperationSpan(span, resp)
			}
			outcome := "ok"
			if len(resp.Errors) > 0 {
				outcome = "error"
			}
			s.metrics.operations.WithLabelValues(kind, outcome).Inc()
			s.metrics.operationSeconds.WithLabelValues(kind).Observe(time.Since(start).Seconds())
			s.metrics.operationStatements.WithLabelValues(kind).Observe(float64(tally.Count()))
		}
		return resp
	}
}

// countErrors counts the error codes of every response.
func (s *Server) countErrors(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp != nil {
		for _, e := range resp.Errors {
			code, _ := e.Extensions["code"].(string)
			if code == "" {
				code = "NONE"
			}
			s.metrics.errors.WithLabelValues(code).Inc()
		}
	}
	return resp
}

// requireAuthentication answers UNAUTHENTICATED for every root data field
// when the request carries no viewer; introspection stays open (when
// enabled), and so do the anonymous roots (sharedConversation).
func requireAuthentication(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	fc := graphql.GetRootFieldContext(ctx)
	if viewer.FromContext(ctx) == nil && fc != nil && !strings.HasPrefix(fc.Field.Name, "__") && !anonymousRoot(fc.Field.Name) {
		graphql.AddError(ctx, domain.Errorf(domain.CodeUnauthenticated, "authentication required: send Authorization: Bearer <token>"))
		return graphql.Null
	}
	return next(ctx)
}

type getRequestKey struct{}

// markGET tags plain GET requests (not WebSocket upgrades) so that only
// queries run over GET.
func markGET(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Upgrade") == "" {
			ctx := ctxflag.Set[getRequestKey](r.Context())
			if id := documentIDFromQuery(r.URL.Query()); id != "" {
				ctx = persisted.WithDocumentID(ctx, id)
			}
			r = r.WithContext(ctx)
		}
		next.ServeHTTP(w, r)
	})
}

func isGET(ctx context.Context) bool {
	return ctxflag.IsSet[getRequestKey](ctx)
}
