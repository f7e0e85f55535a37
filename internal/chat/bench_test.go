package chat_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/chat/treebackfill"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

// countedDB wraps raw so that every Ent statement is counted.
func countedDB(raw *store.DB) (*store.DB, *atomic.Int64) {
	n := &atomic.Int64{}
	return hookedDB(raw, func() error { n.Add(1); return nil }), n
}

// seedRounds writes rounds whole rounds (question, completed attempt with
// one source, answer) into conv with bulk inserts, and a summary covering
// all but the last keep rounds, as the summariser would leave it.
func seedRounds(tb testing.TB, e *env, conv *ent.Conversation, rounds, keep int) {
	tb.Helper()
	ctx := as(alice)
	chunk := e.db.Client.Chunk.Query().FirstX(ctx)
	const batch = 500
	now := time.Now()
	for start := 0; start < rounds; start += batch {
		end := min(start+batch, rounds)
		users := make([]*ent.MessageCreate, 0, end-start)
		for i := start; i < end; i++ {
			users = append(users, e.db.Client.Message.Create().SetConversationID(conv.ID).SetOwnerID("alice").
				SetSequenceNo(int64(2*i+1)).SetRole(message.RoleUSER).SetContent(fmt.Sprintf("第%d个问题：上传文件最大是多少？", i)))
		}
		um := e.db.Client.Message.CreateBulk(users...).SaveX(ctx)
		atts := make([]*ent.AttemptCreate, len(um))
		for k, u := range um {
			atts[k] = e.db.Client.Attempt.Create().SetConversationID(conv.ID).SetOwnerID("alice").
				SetUserMessageID(u.ID).SetClientRequestID(uuid.NewString()).SetOriginalQuestion(u.Content).
				SetStatus(attempt.StatusCOMPLETED).SetAnswer("单个上传文件最大为 20MB [C1]。").SetStartedAt(now).SetCompletedAt(now)
		}
		am := e.db.Client.Attempt.CreateBulk(atts...).SaveX(ctx)
		answers := make([]*ent.MessageCreate, len(am))
		sources := make([]*ent.SourceCreate, len(am))
		for k, a := range am {
			answers[k] = e.db.Client.Message.Create().SetConversationID(conv.ID).SetOwnerID("alice").
				SetSequenceNo(int64(2*(start+k) + 2)).SetRole(message.RoleASSISTANT).SetContent(a.Answer).SetAttemptID(a.ID)
			sources[k] = e.db.Client.Source.Create().SetAttemptID(a.ID).SetOwnerID("alice").SetChunkID(chunk.ID).
				SetDocumentID(chunk.DocumentID).SetLabel("C1").SetRank(1).SetScore(0.5).SetSnippet("20MB").
				SetDocumentTitle("文件上传限制").SetDocumentVersion(1).SetCited(true)
		}
		e.db.Client.Message.CreateBulk(answers...).ExecX(ctx)
		e.db.Client.Source.CreateBulk(sources...).ExecX(ctx)
	}
	covered := max(0, rounds-keep)
	e.db.Client.Conversation.UpdateOneID(conv.ID).SetLastSequenceNo(int64(2 * rounds)).
		SetSummary("用户问：上传文件最大是多少？；结果：已回答").SetSummaryMessageSequence(int64(2 * covered)).
		SetSummaryVersion(covered / 4).ExecX(ctx)
}

// TestContextCostIsFlat: assembling the context of a 1,000-round
// conversation sends exactly as many statements as for a 10-round one,
// because only the window and the summary are loaded, whatever the
// history strategy. The two conversations are seeded once per backend and
// each strategy is set on the tenant in turn. The current path's page of a
// 10,000-message tree is counted through the API by internal/server's
// TestCurrentPathStatementsAreFlat, and the context on a branch by
// TestTreeContextCostIsFlat.
func TestContextCostIsFlat(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		db, n := countedDB(raw)
		e := newEnv(t, db)
		var convs []*ent.Conversation
		for _, rounds := range []int{10, 1000} {
			conv := e.conversation(t, alice)
			seedRounds(t, e, conv, rounds, 8)
			convs = append(convs, conv)
		}
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		for _, s := range domain.HistoryStrategies {
			t.Run(string(s), func(t *testing.T) {
				st := domain.DefaultTenantSettings()
				st.HistoryStrategy = s
				require.NoError(t, e.db.Client.Tenant.UpdateOneID(demo.TenantID).SetSettings(st).Exec(sys))
				var counts []int64
				for _, conv := range convs {
					// Warm up caches (the SQLite retriever caches vectors), then count.
					_, err := e.eng.PreviewContext(as(alice), conv.ID, "那超过以后返回什么错误码？")
					require.NoError(t, err)
					n.Store(0)
					m, err := e.eng.PreviewContext(as(alice), conv.ID, "那超过以后返回什么错误码？")
					require.NoError(t, err)
					require.Equal(t, s, m.Strategy)
					if s == domain.StrategySemanticSummary {
						require.True(t, m.SummaryIncluded)
					} else {
						require.Positive(t, m.HistoryRounds)
					}
					counts = append(counts, n.Load())
				}
				require.Equal(t, counts[0], counts[1], "statements for 10 vs 1,000 rounds")
				t.Logf("statements per context assembly: %d", counts[0])
			})
		}
	})
}

// maxContextStatements bounds the statements of one context assembly
// (PreviewContext) per backend (docs/BENCHMARKS.md, "Context assembly" and
// "Statements per ask"): the conversation, the tenant's settings, the
// window (its answers' attempts joined, their sources' readability as
// EXISTS flags), and the search (the nearest chunks with their documents
// joined; on SQLite the readable chunks with their documents, scored in Go
// against cached embeddings).
var maxContextStatements = map[string]int64{dialect.Postgres: 4, dialect.SQLite: 4}

// TestContextAssemblyStatements: a context assembly sends at most
// maxContextStatements statements (12 on PostgreSQL and 10 on SQLite
// before the window stopped re-reading the conversation and loading its
// attempts apart; 10 and 9 before the window read its sources' flags in
// the same statement and the search needed no transaction nor a second
// statement for the documents).
func TestContextAssemblyStatements(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		db, n := countedDB(raw)
		e := newEnv(t, db)
		conv := e.conversation(t, alice)
		seedRounds(t, e, conv, 20, 8)
		_, err := e.eng.PreviewContext(as(alice), conv.ID, "那超过以后返回什么错误码？") // warm-up
		require.NoError(t, err)
		n.Store(0)
		m, err := e.eng.PreviewContext(as(alice), conv.ID, "那超过以后返回什么错误码？")
		require.NoError(t, err)
		require.NotEmpty(t, m.ChunkIDs)
		require.Positive(t, m.HistoryRounds)
		limit, ok := maxContextStatements[string(raw.Dialect)]
		require.True(t, ok, raw.Dialect)
		require.LessOrEqual(t, n.Load(), limit, "statements per context assembly")
	})
}

// TestStatementsPerAsk counts the database statements of one whole ask
// (the ask call, the background answer, the completion and the work after
// it), excluding the model. The number is documented in
// docs/BENCHMARKS.md. The count must not depend on timing: checkpoints
// (one per CheckpointInterval of streaming) are kept out of it by a long
// interval; the client always follows the answer live (the model waits
// until it has subscribed), never as a replay of a finished attempt; and
// the work after an answer (summary check) is waited for, both before
// counting starts and before it ends. The answer's run is held until the
// ask call has been counted (HoldRuns). The
// engine meters asks with the database limiter, as a server does: one
// statement of the ask call.
//
// The asserted counts are those of docs/BENCHMARKS.md ("Statements per
// ask" and "The ask path"): before that work the ask call sent 11
// statements and the whole ask 37 on PostgreSQL (35 on SQLite); then 8
// and 29 (28) before the ask's one transaction (BEGIN, one read, one
// data-modifying statement on PostgreSQL, COMMIT) and before the window,
// the search, the rewrite, the subscriber and the summary check lost
// theirs. The search index (internal/convsearch) costs the answer's entry
// on PostgreSQL (the question's is in the ask's statement), and both
// entries on SQLite. The usage ledger (internal/quota) costs one
// statement after the completion: the answer's SETTLE entry (17 and 21;
// without a token quota the ask reserves nothing, so the ask call is
// unchanged); metering the side calls (quota.Meter.Metered) one more, the
// follow-up's REWRITE entry (18 and 22).
func TestStatementsPerAsk(t *testing.T) {
	want := map[string]struct{ ask, whole int64 }{
		dialect.Postgres: {ask: 4, whole: 18},
		dialect.SQLite:   {ask: 8, whole: 22},
	}
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		db, n := countedDB(raw)
		// Wired as cmd/ragchat serves: the database's ask limiter, model
		// profiles (the demo tenant has none) and attachment retrieval.
		served := func(d *chat.Deps) {
			d.AskLimiter = askrate.NewDBLimiter(db, nil)
			d.Models = modelprofile.New(db.Client, modelprofile.NewEndpoints(d.Model, d.Model, nil))
			d.SearchAttachments = true
		}
		e := newEnvDeps(t, db, nil, served, func(c *chat.Config, _ *domain.TenantSettings) { c.CheckpointInterval = time.Hour })
		conv := e.conversation(t, alice)
		e.ask(t, alice, conv.ID, "上传文件最大是多少？") // warm up: first ask sets the title
		chat.WaitIdle(e.eng)
		var counts []int64
		release := chat.HoldRuns(e.eng)
		for _, q := range []string{"那超过以后返回什么错误码？", "那退款呢？"} {
			e.model.hold()
			n.Store(0)
			r, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: q})
			require.NoError(t, err)
			askOnly := n.Load()
			release()
			ctx, cancel := context.WithTimeout(as(alice), 30*time.Second)
			ch, err := e.eng.SubscribeAttempt(ctx, r.Attempt.ID, 0)
			require.NoError(t, err)
			e.model.release()
			for range ch {
			}
			require.NoError(t, ctx.Err())
			cancel()
			chat.WaitIdle(e.eng)
			whole := n.Load()
			t.Logf("statements: ask call %d, whole ask %d", askOnly, whole)
			require.Equal(t, want[raw.Dialect].ask, askOnly, "statements of the ask call")
			require.Equal(t, want[raw.Dialect].whole, whole, "statements of the whole ask")
			// The completion transaction wrote the answer's usage and its
			// rewrite's, in the one statement counted above.
			var purposes []string
			for _, u := range raw.Client.UsageEntry.Query().Where(usageentry.AttemptID(r.Attempt.ID)).
				AllX(viewer.SystemJobContext(context.Background(), viewer.JobMeter)) {
				require.Equal(t, usageentry.KindSETTLE, u.Kind)
				purposes = append(purposes, u.Purpose.String())
			}
			require.ElementsMatch(t, []string{"ANSWER", "REWRITE"}, purposes)
			counts = append(counts, whole)
		}
		require.Equal(t, counts[0], counts[1], "the same kind of ask sends the same statements")
	})
}

// BenchmarkContextAssembly measures PreviewContext (window, rewrite,
// retrieval, assembly) on PostgreSQL for conversations of 10 to 10,000
// rounds, each made a message tree (one path, as the server's backfill
// leaves a conversation written before trees, and as asks write them); the
// cost must stay flat. Besides time and allocations it reports
// the statements sent per assembly (stmts/op, deterministic) and the
// benchmark process's own CPU time per assembly (cpu-ns/op: user and
// system, the database's share excluded), which a busy machine disturbs
// far less than wall-clock time.
func BenchmarkContextAssembly(b *testing.B) {
	raw := storetest.Open(b, testdb.Backend{Name: "postgres", DSN: testdb.PostgresURL(b)})
	db, n := countedDB(raw)
	e := newEnv(b, db)
	for _, rounds := range []int{10, 100, 1000, 10000} {
		conv, err := e.eng.CreateConversation(as(alice), chat.CreateConversationInput{})
		require.NoError(b, err)
		seedRounds(b, e, conv, rounds, 8)
		require.NoError(b, treebackfill.Conversation(context.Background(), raw.Client, conv.ID))
		// Autovacuum would have analysed the tables after such a load.
		_, err = raw.SQL.Exec("ANALYZE")
		require.NoError(b, err)
		b.Run(fmt.Sprintf("rounds=%d", rounds), func(b *testing.B) {
			var tokens int
			n.Store(0)
			cpu := processCPU()
			for b.Loop() {
				m, err := e.eng.PreviewContext(as(alice), conv.ID, "那超过以后返回什么错误码？")
				if err != nil {
					b.Fatal(err)
				}
				tokens = m.Tokens.Total
			}
			b.ReportMetric(float64(tokens), "prompt-tokens")
			b.ReportMetric(float64(n.Load())/float64(b.N), "stmts/op")
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU returns the user and system CPU time this process has used,
// in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkAskOffline measures whole asks (stored, answered by the offline
// model at zero delay, completed) on PostgreSQL, one conversation per
// parallel worker. It also reports the engine's time from calling Ask to
// the first DELTA at the subscriber (first-delta-p50/p99-ms): the backend
// overhead to the first token, since the offline model adds no delay.
func BenchmarkAskOffline(b *testing.B) {
	raw := storetest.Open(b, testdb.Backend{Name: "postgres", DSN: testdb.PostgresURL(b)})
	e := newEnv(b, raw)
	var (
		mu    sync.Mutex
		first []time.Duration
	)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		conv, err := e.eng.CreateConversation(as(alice), chat.CreateConversationInput{})
		if err != nil {
			b.Error(err)
			return
		}
		for pb.Next() {
			t0 := time.Now()
			r, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "上传文件最大是多少？"})
			if err != nil {
				b.Error(err)
				return
			}
			ch, err := e.eng.SubscribeAttempt(as(alice), r.Attempt.ID, 0)
			if err != nil {
				b.Error(err)
				return
			}
			seen := false
			for ev := range ch {
				if !seen && ev.Kind == chat.EventDelta {
					seen = true
					mu.Lock()
					first = append(first, time.Since(t0))
					mu.Unlock()
				}
			}
		}
	})
	b.StopTimer()
	if len(first) > 0 {
		slices.Sort(first)
		ms := func(q float64) float64 {
			return float64(first[int(q*float64(len(first)-1))]) / float64(time.Millisecond)
		}
		b.ReportMetric(ms(0.5), "first-delta-p50-ms")
		b.ReportMetric(ms(0.99), "first-delta-p99-ms")
	}
}
