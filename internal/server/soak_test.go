package server_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// cacheSample is one cache's entries and bound, as the server exports them.
type cacheSample struct{ entries, bound float64 }

// TestSoakStaysWithinTheCacheBounds (issue 16, item 7): after a warm-up,
// two identical rounds of asks, each by new users with new conversations
// and WebSockets, leave every cache that is bounded by a count within its
// bound, the broker's topics without a subscriber within MaxIdleTopics,
// nothing held for running work once the server is idle, and the Go heap
// in use after the second round within a generous bound of the first. The
// broker keeps a topic per attempt, conversation and user, far more in
// each round than its bound allows.
func TestSoakStaysWithinTheCacheBounds(t *testing.T) {
	const (
		maxIdleTopics = 24
		users         = 3
		convsPerUser  = 4
		turns         = 3
		// heapSlack is the growth of the heap in use that the second
		// round may cause: generous, since the heap also holds this
		// test's clients and the race detector's allocations.
		heapSlack = 16 << 20
	)
	questions := []string{"上传文件最大是多少？", "那超过以后返回什么错误码？", "退款多久到账？", "How large can an uploaded file be?"}
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			h := servertest.Start(t, b, servertest.Options{
				Model:  offline.New(offline.Options{TokenDelay: -1}),
				Broker: broker.MemoryOptions{MaxIdleTopics: maxIdleTopics},
			})
			h.SetTenantSettings(t, "demo", func(s *domain.TenantSettings) { s.AskBurst = 1000 })
			ctx := ctxT(t)
			// round asks users × convsPerUser × turns questions, each
			// followed over a WebSocket to COMPLETED, and returns how many.
			round := func(tag string) int {
				asks := 0
				for u := range users {
					c := h.Client(t, fmt.Sprintf("%s-user-%d", tag, u))
					for range convsPerUser {
						ws, err := c.DialWS(ctx, gqlclient.WSOptions{})
						if err != nil {
							t.Fatalf("%s: dial: %v", tag, err)
						}
						conv := createConversation(t, c)
						for turn := range turns {
							a := ask(t, c, conv, questions[(asks+turn)%len(questions)])
							sub, err := ws.Subscribe(attemptEventsQuery, map[string]any{"a": a})
							if err != nil {
								t.Fatalf("%s: subscribe: %v", tag, err)
							}
							checkStream(t, collectEvents(t, sub))
							asks++
						}
						ws.Close()
					}
					c.HTTP.CloseIdleConnections() // the user signs off
				}
				return asks
			}
			caches := func() map[string]cacheSample {
				families, err := h.Server.Metrics().Registry().Gather()
				if err != nil {
					t.Fatalf("gather metrics: %v", err)
				}
				out := map[string]cacheSample{}
				for _, f := range families {
					for _, m := range f.GetMetric() {
						name := ""
						for _, l := range m.GetLabel() {
							if l.GetName() == "cache" {
								name = l.GetValue()
							}
						}
						s := out[name]
						switch f.GetName() {
						case "ragchat_cache_entries":
							s.entries = m.GetGauge().GetValue()
						case "ragchat_cache_bound":
							s.bound = m.GetGauge().GetValue()
						default:
							continue
						}
						out[name] = s
					}
				}
				return out
			}
			// quiet waits until no answer runs and the goroutines are back
			// to target (0: only that no answer runs), then returns the
			// heap in use after a collection and the caches.
			quiet := func(target int) (uint64, map[string]cacheSample) {
				deadline := time.Now().Add(30 * time.Second)
				for {
					c := caches()
					if c["chat_runs"].entries == 0 && c["chat_summary_locks"].entries == 0 &&
						(target == 0 || runtime.NumGoroutine() <= target) {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("the server did not become idle: %d goroutines (baseline %d), caches %v", runtime.NumGoroutine(), target, c)
					}
					select {
					case <-ctx.Done():
						t.Fatal(ctx.Err())
					case <-time.After(20 * time.Millisecond):
					}
				}
				runtime.GC()
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				return ms.HeapInuse, caches()
			}

			round("warm")
			quiet(0)
			baseline := settledGoroutines(h.Client(t, "probe"), 0)
			n1 := round("one")
			heap1, after1 := quiet(baseline + 2)
			n2 := round("two")
			heap2, after2 := quiet(baseline + 2)
			t.Logf("%s: heap in use %.1f MiB after %d asks, %.1f MiB after %d more", b.Name, float64(heap1)/(1<<20), n1, float64(heap2)/(1<<20), n2)
			t.Logf("%s: caches after round one %v, after round two %v", b.Name, after1, after2)

			want := []string{"auth_tokens", "broker_idle_topics", "broker_backlog_events", "chat_outcomes", "chat_kb_models", "chat_runs",
				"chat_summary_locks", "graphql_documents", "graphql_persisted_queries", "graphql_prechecked", "offline_sentence_vectors"}
			if b.Name == "postgres" {
				want = append(want, "db_prepared_statements", "db_seen_statements")
			} else {
				want = append(want, "knowledge_sqlite_vectors")
			}
			for _, name := range want {
				if _, ok := after2[name]; !ok {
					t.Errorf("cache %s is not exported (ragchat_cache_entries)", name)
				}
			}
			for i, sizes := range []map[string]cacheSample{after1, after2} {
				for name, s := range sizes {
					if s.bound > 0 && s.entries > s.bound {
						t.Errorf("after round %d: cache %s holds %.0f entries, more than its bound %.0f", i+1, name, s.entries, s.bound)
					}
				}
				if s := sizes["broker_idle_topics"]; s.bound != maxIdleTopics || s.entries > maxIdleTopics {
					t.Errorf("after round %d: the broker keeps %.0f topics without a subscriber (bound %.0f), want at most %d",
						i+1, s.entries, s.bound, maxIdleTopics)
				}
				if s := sizes["broker_backlog_events"]; s.entries > maxIdleTopics*broker.DefaultBacklogSize {
					t.Errorf("after round %d: the broker's backlogs hold %.0f events, more than its idle topics can", i+1, s.entries)
				}
			}
			if heap2 > heap1+heapSlack {
				t.Errorf("the second round grew the heap in use from %.1f to %.1f MiB (more than %d MiB)",
					float64(heap1)/(1<<20), float64(heap2)/(1<<20), heapSlack>>20)
			}
		})
	}
}
