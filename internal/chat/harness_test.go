package chat_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/authwatch"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/feedback"
	"github.com/ragchat/ragchat/internal/fork"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/quota"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/support"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/tokens"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Demo-tenant viewers.
var (
	alice = &viewer.Viewer{TenantID: demo.TenantID, UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}
	bob   = &viewer.Viewer{TenantID: demo.TenantID, UserID: "bob", Roles: []viewer.Role{viewer.RoleMember}}
	olga  = &viewer.Viewer{TenantID: demo.TenantID, UserID: "olga", Roles: []viewer.Role{viewer.RoleMember}, Groups: []string{demo.OpsGroup}}
	admin = &viewer.Viewer{TenantID: demo.TenantID, UserID: "root", Roles: []viewer.Role{viewer.RoleAdmin}}
)

func as(v *viewer.Viewer) context.Context { return viewer.NewContext(context.Background(), v) }

// clock is a settable clock: real time plus an offset.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// spyModel wraps a model, counts answer calls, records prompts, and can
// hold answers back until released.
type spyModel struct {
	llm.Model
	mu      sync.Mutex
	calls   int
	prompts []llm.ChatRequest
	gate    chan struct{} // when non-nil, ChatStream waits for it
}

func (s *spyModel) ChatStream(ctx context.Context, req llm.ChatRequest) (llm.Stream, error) {
	s.mu.Lock()
	s.calls++
	s.prompts = append(s.prompts, req)
	gate := s.gate
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, llm.ContextError(ctx.Err())
		}
	}
	return s.Model.ChatStream(ctx, req)
}

func (s *spyModel) chatCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func (s *spyModel) lastPrompt() llm.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prompts[len(s.prompts)-1]
}

func (s *spyModel) hold() {
	s.mu.Lock()
	s.gate = make(chan struct{})
	s.mu.Unlock()
}

func (s *spyModel) release() {
	s.mu.Lock()
	if s.gate != nil {
		close(s.gate)
		s.gate = nil
	}
	s.mu.Unlock()
}

// env is one engine on one backend with the demo knowledge base loaded.
type env struct {
	db  *store.DB
	eng *chat.Engine
	// feed is the engine's feed (internal/feed), as the server wires it.
	feed   *feed.Service
	model  *spyModel
	svc    *knowledge.Service
	clock  *clock
	broker *broker.Memory
	// access is the engine's document-access stamps, which a knowledge
	// service of the test moves (knowledge.Options.Changes).
	access *authwatch.Access
	kb     uuid.UUID
	// settings and support are the services beside the engine, wired as
	// the server wires them.
	settings *tenantsettings.Service
	support  *support.Service
	feedback *feedback.Service
	forks    *fork.Service
	// quota is the metering service beside the engine, whose
	// reconciliation the engine's reaper runs (Deps.ReconcileUsage).
	quota *quota.Service
}

type envOption func(*chat.Config, *domain.TenantSettings)

func newEnv(t testing.TB, db *store.DB, opts ...envOption) *env {
	return newEnvWith(t, db, nil, opts...)
}

// chatOverride answers with chat while embeddings, rewrites and summaries
// stay offline (deterministic retrieval).
type chatOverride struct {
	llm.Model
	chat llm.Chat
}

func (c chatOverride) ChatStream(ctx context.Context, req llm.ChatRequest) (llm.Stream, error) {
	return c.chat.ChatStream(ctx, req)
}

// newEnvWith is newEnv with answers from answers (nil = offline).
func newEnvWith(t testing.TB, db *store.DB, answers llm.Chat, opts ...envOption) *env {
	t.Helper()
	return newEnvDeps(t, db, answers, nil, opts...)
}

// newEnvDeps is newEnvWith whose engine's adapters deps edits (nil: none),
// e.g. to give it a rate limiter or another broker.
func newEnvDeps(t testing.TB, db *store.DB, answers llm.Chat, deps func(*chat.Deps), opts ...envOption) *env {
	t.Helper()
	ctx := context.Background()
	var base llm.Model = offline.New(offline.Options{TokenDelay: -1})
	svc := knowledge.NewService(db.Client, base, tokens.Default(), knowledge.Options{})
	_, err := knowledge.LoadDemo(ctx, db.Client, svc)
	require.NoError(t, err)
	cfg := chat.Config{
		InstanceID: "test-" + uuid.NewString()[:8], MinEvidenceScore: offline.SuggestedMinEvidenceScore,
		CheckpointInterval: 20 * time.Millisecond, LeaseDuration: 5 * time.Second,
	}
	st := domain.DefaultTenantSettings()
	for _, o := range opts {
		o(&cfg, &st)
	}
	sys := viewer.SystemJobContext(ctx, viewer.JobProvision)
	require.NoError(t, db.Client.Tenant.UpdateOneID(demo.TenantID).SetSettings(st).Exec(sys))
	answerer := base
	if answers != nil {
		answerer = chatOverride{Model: base, chat: answers}
	}
	e := &env{db: db, model: &spyModel{Model: answerer}, svc: svc, clock: &clock{}}
	e.broker = broker.NewMemory(broker.MemoryOptions{})
	t.Cleanup(func() { _ = e.broker.Close() })
	e.access = authwatch.NewAccess(e.broker, nil)
	d := chat.Deps{
		DB: db, Model: e.model, Broker: e.broker, Access: e.access,
		Retriever: knowledge.NewRetriever(db, knowledge.RetrieverOptions{}), Now: e.clock.now,
	}
	if deps != nil {
		deps(&d)
	}
	e.quota = quota.NewService(db, quota.Options{Pricing: d.Pricing, Profiles: d.Models, Logger: d.Logger, Now: d.Now, Lease: cfg.WithDefaults().LeaseDuration})
	if d.ReconcileUsage == nil {
		d.ReconcileUsage = e.quota.Reconcile
	}
	// The environment stands for the process that opened the client, so it
	// installs the client's read audit, once (instances beside it share it).
	readaudit.Install(d.DB.Client, d.Logger)
	if d.Feed == nil {
		d.Feed = feed.New(feed.Deps{Client: d.DB.Client, Broker: d.Broker, Logger: d.Logger, Now: d.Now})
	}
	e.eng, e.feed = chat.New(cfg, d), d.Feed
	e.settings = tenantsettings.New(db.Client, e.eng.ServerChatModel())
	e.support = support.New(db.Client, support.Options{Now: e.clock.now, Logger: d.Logger, ReasonChars: cfg.WithDefaults().Limits.CommentChars})
	e.feedback = feedback.New(db.Client, feedback.Options{CommentChars: cfg.WithDefaults().Limits.CommentChars, Now: e.clock.now})
	e.forks = fork.New(db.Client, e.feed, e.clock.now)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.eng.Shutdown(ctx)
	})
	kb, err := db.Client.KnowledgeBase.Query().First(as(alice))
	require.NoError(t, err)
	e.kb = kb.ID
	return e
}

// forEach runs fn on both backends with a fresh environment.
func forEach(t *testing.T, fn func(t *testing.T, e *env), opts ...envOption) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		fn(t, newEnv(t, db, opts...))
	})
}

func (e *env) conversation(t *testing.T, v *viewer.Viewer) *ent.Conversation {
	t.Helper()
	c, err := e.eng.CreateConversation(as(v), chat.CreateConversationInput{})
	require.NoError(t, err)
	return c
}

// outcome is a finished attempt as a streaming client saw it.
type outcome struct {
	attempt *ent.Attempt
	text    string
	events  []chat.AttemptEvent
}

// wait streams an attempt from afterSeq to its end.
func (e *env) wait(t *testing.T, v *viewer.Viewer, id uuid.UUID, afterSeq int) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(as(v), 30*time.Second)
	defer cancel()
	ch, err := e.eng.SubscribeAttempt(ctx, id, afterSeq)
	require.NoError(t, err)
	var o outcome
	var b strings.Builder
	last := afterSeq
	for ev := range ch {
		o.events = append(o.events, ev)
		if ev.Kind == chat.EventDelta {
			require.Greater(t, ev.Seq, last, "delta seq must increase")
			require.Equal(t, ev.Seq-last, len([]rune(ev.Text)), "delta must continue exactly where the last ended")
			last = ev.Seq
			b.WriteString(ev.Text)
		}
		if ev.Attempt != nil {
			o.attempt = ev.Attempt
		}
	}
	require.NoError(t, ctx.Err(), "stream did not finish")
	require.NotNil(t, o.attempt, "no terminal event")
	o.text = b.String()
	return o
}

// ask asks and waits for the answer.
func (e *env) ask(t *testing.T, v *viewer.Viewer, conv uuid.UUID, question string) outcome {
	t.Helper()
	res, err := e.eng.Ask(as(v), chat.AskInput{ConversationID: conv, ClientMessageID: uuid.NewString(), Question: question})
	require.NoError(t, err)
	return e.wait(t, v, res.Attempt.ID, 0)
}

func code(err error) domain.Code { return domain.ErrorCode(err) }

// conversationByID parses a conversation id.
func (e *env) conversationByID(t *testing.T, id string) uuid.UUID {
	t.Helper()
	u, err := uuid.Parse(id)
	require.NoError(t, err)
	return u
}

// ptrTo returns a pointer to a copy of v.
func ptrTo[T any](v T) *T { return &v }
