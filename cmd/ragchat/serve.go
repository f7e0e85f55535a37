package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"entgo.io/ent/dialect"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/authwatch"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/chat/treebackfill"
	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/convsearch"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/planstats"
	"github.com/ragchat/ragchat/internal/portability"
	"github.com/ragchat/ragchat/internal/server"
	"github.com/ragchat/ragchat/internal/sharing"
	"github.com/ragchat/ragchat/internal/tracing"
)

// runServe runs the API server until SIGINT or SIGTERM, then shuts down
// gracefully.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	cfg.Attachments.SandboxCommand = attachmentSandbox()
	log := server.NewLogger(stderr, cfg.Log.Level)
	slog.SetDefault(log)
	log.LogAttrs(ctx, slog.LevelInfo, "starting ragchat", append([]slog.Attr{slog.String("version", version())}, cfg.Summary()...)...)

	db, err := openDB(ctx, cfg, log, cfg.Database.AutoMigrate)
	if err != nil {
		return err
	}
	ident, err := claimIdentity(ctx, cfg, db, log)
	if err != nil {
		db.Close()
		return err
	}
	cfg.InstanceID = ident.id
	log.Info("instance identity", slog.String("instance", ident.id), slog.Bool("stable", ident.stable))
	metrics := server.NewMetrics()
	tp, stopTracing, err := tracing.Setup(ctx)
	if err != nil {
		ident.release()
		db.Close()
		return err
	}
	// After the server and the engine stopped: the last spans are flushed.
	defer func() {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := stopTracing(tctx); err != nil {
			log.Warn("traces not flushed", slog.String("error", err.Error()))
		}
	}()
	log.Info("tracing", slog.Bool("export", tracing.Enabled()))
	c, err := newCore(ctx, cfg, db, log, metrics, tp)
	if err != nil {
		ident.release()
		db.Close()
		return err
	}
	defer c.close()
	defer ident.release() // before the database closes
	if d, ok := c.broker.(*broker.Distributed); ok {
		metrics.WatchBroker(d.Stats)
	}
	metrics.WatchStatements(db.Statements)
	// What this instance was generating when it last stopped (kill -9
	// included) ends now, not when its leases expire.
	if n, err := c.engine.ReclaimOwn(ctx); err != nil {
		log.Warn("attempts of a previous run not reclaimed; the reaper will end them", slog.String("error", err.Error()))
	} else if n > 0 {
		log.Info("reclaimed the attempts of a previous run", slog.Int("attempts", n))
	}
	if cfg.LoadDemo {
		created, err := knowledge.LoadDemo(ctx, db.Client, c.knowledge)
		if err != nil {
			return fmt.Errorf("load the demo knowledge base: %w", err)
		}
		if created {
			log.Info("loaded the demo tenant and knowledge base", slog.String("tenant", demo.TenantID))
		}
	}
	verifier, err := newVerifier(cfg, log)
	if err != nil {
		return err
	}
	viewers := authwatch.StartViewers(c.broker, log, 0)
	defer viewers.Close() // before the broker closes
	attachments, err := c.newAttachments(cfg.Attachments, log)
	if err != nil {
		return err
	}
	srv, err := server.New(server.Options{
		Config: cfg, DB: db, Engine: c.engine, Feed: c.feed, Knowledge: server.KnowledgeService(c.knowledge),
		Attachments: attachments,
		Organise:    c.organise,
		Usage:       c.usage,
		Verifier:    verifier, Logger: log, Metrics: metrics, Console: consoleOptions(cfg),
		Viewers: viewers, Support: c.support, TenantSettings: c.settings,
		Portability:    portability.New(db.Client, c.feed, cfg.Imports.Portability(askrate.NewDBLimiter(db, time.Now))),
		TracerProvider: tp,
		Models:         c.models,
		Sharing:        c.sharing,
		Feedback:       c.feedback,
		Forks:          c.forks,
		Access:         c.access,
	})
	if err != nil {
		return err
	}
	metrics.WatchCaches(db, verifier, c.engine, srv, viewers)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	addr := ln.Addr().String()
	log.Info("listening", slog.String("addr", addr), slog.String("graphql", "http://"+addr+"/graphql"))
	if cfg.IsDevelopment() {
		if !config.IsLoopbackAddr(cfg.Addr) {
			log.Warn("development sign-in hands out tokens to every machine that reaches this address ("+config.DevAllowRemoteVar+"=true)",
				slog.String("addr", addr))
		}
		printDevBanner(stdout, cfg, addr, log)
	}

	if cfg.DebugAddr != "" {
		stopDebug, err := serveDebug(cfg.DebugAddr, log)
		if err != nil {
			return err
		}
		defer stopDebug()
	}

	bgCtx, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.engine.RunBackground(bgCtx)
	}()
	// Share read buckets of clients gone idle are deleted (bounded
	// sweeps; internal/sharing/README.md).
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.sharing.RunSweeps(bgCtx, sharing.SweepEvery)
	}()
	// Tables that grew past their planner statistics are analysed (a new
	// database's first minutes; internal/planstats).
	if db.Dialect == dialect.Postgres {
		wg.Add(1)
		go func() {
			defer wg.Done()
			planstats.New(db.SQL, log).Run(bgCtx, planstats.Every)
		}()
	}
	// Conversations written before message trees get their tree in the
	// background, one short transaction each, so that readiness does not
	// wait for them (safe on every replica at once; docs/ENGINE.md, "Rows
	// written before message trees").
	wg.Add(1)
	go func() {
		defer wg.Done()
		n, err := treebackfill.All(bgCtx, db.Client, treebackfill.DefaultBatch)
		switch {
		case err != nil && bgCtx.Err() == nil:
			log.Warn("message tree backfill stopped; the next start continues it", slog.Int("conversations", n), slog.String("error", err.Error()))
		case n > 0:
			log.Info("message tree backfill", slog.Int("conversations", n))
		}
	}()
	// Messages and titles written before conversation search get their
	// search entries the same way (internal/convsearch/README.md).
	wg.Add(1)
	go func() {
		defer wg.Done()
		n, err := convsearch.Backfill(bgCtx, db.Client, db.Dialect, convsearch.DefaultBackfillBatch)
		switch {
		case err != nil && bgCtx.Err() == nil:
			log.Warn("search backfill stopped; the next start continues it", slog.Int("entries", n), slog.String("error", err.Error()))
		case n > 0:
			log.Info("search backfill", slog.Int("entries", n))
		}
	}()
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	select {
	case err = <-serveErr:
		log.Error("server stopped", slog.String("error", fmt.Sprint(err)))
	case <-ctx.Done():
		log.Info("shutting down", slog.Duration("timeout", cfg.HTTP.ShutdownTimeout))
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.HTTP.ShutdownTimeout)
		err = srv.Shutdown(sctx)
		cancel()
		if serr := <-serveErr; serr != nil && err == nil {
			err = serr
		}
	}
	stopBackground()
	wg.Wait()
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Warn("shutdown finished with errors", slog.String("error", err.Error()))
		return err
	}
	log.Info("stopped")
	return nil
}

// printDevBanner prints a ready-to-use token for the demo tenant and a
// sample request.
func printDevBanner(w io.Writer, cfg config.Config, addr string, log *slog.Logger) {
	member, err := mintToken(cfg, demo.TenantID, "demo-user", []string{"member"}, nil, cfg.Auth.DevTokenTTL)
	if err != nil {
		log.Warn("cannot mint a development token", slog.String("error", err.Error()))
		return
	}
	admin, err := mintToken(cfg, demo.TenantID, "demo-admin", []string{"admin"}, []string{demo.OpsGroup}, cfg.Auth.DevTokenTTL)
	if err != nil {
		return
	}
	host := addr
	if h, p, err := net.SplitHostPort(addr); err == nil && (h == "" || h == "::" || h == "0.0.0.0") {
		host = net.JoinHostPort("127.0.0.1", p)
	}
	fmt.Fprintf(w, `
ragchat is running (development) on http://%[1]s
  Console:  http://%[1]s/          (chat; /admin; sign in as a demo user)
  GraphQL:  http://%[1]s/graphql   (WebSocket, SSE, POST, GET)
  GraphiQL: http://%[1]s/graphiql  (add the header {"Authorization": "Bearer <token>"})
  Health:   http://%[1]s/healthz  http://%[1]s/readyz   Metrics: http://%[1]s/metrics

Demo tenant %[2]q, member token (valid %[3]s):
  export TOKEN=%[4]s
Admin token (group %[5]q):
  export ADMIN_TOKEN=%[6]s
More tokens: ragchat token --tenant %[2]s --user alice --role member

Try it:
  curl -s http://%[1]s/graphql -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d '{"query":"mutation { createConversation(input: {}) { id } }"}'
  curl -s http://%[1]s/graphql -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d '{"query":"mutation($c: ID!) { ask(input: {conversationId: $c, clientMessageId: \"q1\", question: \"上传文件最大是多少？\"}) { attempt { id } } }","variables":{"c":"<conversation id>"}}'
  curl -sN http://%[1]s/graphql -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -H 'Accept: text/event-stream' \
    -d '{"query":"subscription($a: ID!) { attemptEvents(attemptId: $a) { kind seq text standaloneQuestion } }","variables":{"a":"<attempt id>"}}'

`, host, demo.TenantID, cfg.Auth.DevTokenTTL, member, demo.OpsGroup, admin)
}
