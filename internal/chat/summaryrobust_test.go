package chat_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/tokens"
	"github.com/ragchat/ragchat/internal/viewer"
)

// foldAfter folds the rounds older than the last one once two have piled
// up: the third ask folds rounds 1 and 2.
func foldAfter(summarizer domain.Summarizer, more func(*domain.TenantSettings)) envOption {
	return func(_ *chat.Config, st *domain.TenantSettings) {
		st.HistoryStrategy = domain.StrategyHybrid
		st.Summarizer = summarizer
		st.HistoryRounds = 1
		st.SummaryTriggerRounds = 1
		if more != nil {
			more(st)
		}
	}
}

func summaryOf(t *testing.T, e *env) (string, int) {
	t.Helper()
	c, err := e.db.Client.Conversation.Query().Only(as(alice))
	require.NoError(t, err)
	return c.Summary, c.SummaryVersion
}

// TestSummaryFactPriority: the summary keeps what the user stated (facts
// and constraints, nearly verbatim) apart from what became of each
// question, and never copies an assistant answer as a fact (docs/ENGINE.md
// D10, "Summarisers"), with either summariser and in either language.
func TestSummaryFactPriority(t *testing.T) {
	tests := []struct {
		name       string
		summarizer domain.Summarizer
		questions  []string
		want       []string
	}{
		{"deterministic/zh", domain.SummarizerDeterministic,
			[]string{"我的订单号是 12345，我用的是 Pro 套餐。", "退款多久到账？", "上传文件最大是多少？"},
			[]string{"用户陈述：我的订单号是 12345，我用的是 Pro 套餐；助手回答结果：", "用户问：退款多久到账？；助手回答结果：已回答"}},
		{"llm/zh", domain.SummarizerLLM,
			[]string{"我的订单号是 12345，我用的是 Pro 套餐。", "退款多久到账？", "上传文件最大是多少？"},
			[]string{"用户陈述：我的订单号是 12345，我用的是 Pro 套餐；助手回答结果：", "用户问：退款多久到账？；助手回答结果：已回答"}},
		{"deterministic/en", domain.SummarizerDeterministic,
			[]string{"My order number is 12345 and I am on the Pro plan.", "How long does a refund take?", "What is RAG?"},
			[]string{"User stated: My order number is 12345 and I am on the Pro plan; Assistant outcome: ", "User asked: How long does a refund take?; Assistant outcome: "}},
		{"llm/en", domain.SummarizerLLM,
			[]string{"My order number is 12345 and I am on the Pro plan.", "How long does a refund take?", "What is RAG?"},
			[]string{"User stated: My order number is 12345 and I am on the Pro plan; Assistant outcome: ", "User asked: How long does a refund take?; Assistant outcome: "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			forEach(t, func(t *testing.T, e *env) {
				askIdle(t, e, tc.questions...)
				summary, version := summaryOf(t, e)
				require.Equal(t, 1, version, "rounds 1 and 2 folded once")
				for _, w := range tc.want {
					assert.Contains(t, summary, w)
				}
				answers := e.db.Client.Message.Query().Where(message.RoleEQ(message.RoleASSISTANT)).AllX(as(alice))
				require.NotEmpty(t, answers)
				for _, a := range answers {
					for _, sentence := range strings.FieldsFunc(a.Content, func(r rune) bool { return strings.ContainsRune("。.!！?？\n", r) }) {
						if s := strings.TrimSpace(sentence); len([]rune(s)) >= 8 {
							assert.NotContains(t, summary, s, "an assistant answer is never copied into the summary")
						}
					}
				}
			}, foldAfter(tc.summarizer, nil))
		})
	}
}

// TestSummaryEntityCheck: an LLM summary that loses a key entity of the
// summarised rounds (an order number, an amount, an error code) or does
// not mark what the user stated is retried, and after three tries the
// deterministic summary is written instead, which keeps them all.
func TestSummaryEntityCheck(t *testing.T) {
	const statement = "我的订单号是 12345，付了¥200，运费 3.5 元，上传时报错 E1001 和 413。"
	const marker = "〔模型摘要〕"
	drop := func(what string, times int) func(int, string) string {
		return func(call int, out string) string {
			if call < times {
				out = strings.ReplaceAll(out, what, "")
			}
			return out + "\n" + marker
		}
	}
	tests := []struct {
		name  string
		edit  func(int, string) string
		calls int
		llm   bool
	}{
		{"keeps everything", drop("", 0), 1, true},
		{"drops the order number once", drop("12345", 1), 2, true},
		{"drops the amount every time", drop("3.5", 99), 3, false},
		{"drops the error code every time", drop("E1001", 99), 3, false},
		{"drops the status code twice", drop("413", 2), 3, true},
		{"does not mark the user's statement", drop("用户陈述：", 99), 3, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			forEach(t, func(t *testing.T, e *env) {
				rec := recordSummaries(e, tc.edit)
				askIdle(t, e, statement, "退款多久到账？", "上传文件最大是多少？")
				calls, _, _ := rec.snapshot()
				require.Len(t, calls, tc.calls)
				for _, c := range calls {
					assert.Subset(t, c.Keep, []string{"12345", "200", "3.5", "E1001", "413"}, "the model is told what to keep")
				}
				summary, _ := summaryOf(t, e)
				for _, want := range []string{"12345", "200", "3.5", "E1001", "413", "用户陈述："} {
					assert.Contains(t, summary, want)
				}
				assert.Equal(t, tc.llm, strings.Contains(summary, marker), "whose summary was written")
			}, foldAfter(domain.SummarizerLLM, nil))
		})
	}
}

// TestSummaryChunkedFolding: a fold larger than one summarisation call —
// more than about twenty rounds, or more than SummaryChunkTokens tokens
// counted with the model's tokenizer — is summarised chunk by chunk and
// merged by one more call; every round is in exactly one chunk, in order,
// and the merged summary keeps every chunk's entities.
func TestSummaryChunkedFolding(t *testing.T) {
	words := strings.TrimSpace(strings.Repeat("please check why the nightly export report keeps failing for our team account ", 4))
	tests := []struct {
		name      string
		asks      int
		settings  func(*domain.TenantSettings)
		question  func(i int) string
		wantFold  int
		wantSizes []int // chunk sizes; nil: only the token bound is checked
		limit     int   // the chunk token bound
	}{
		{"by rounds", 27, func(st *domain.TenantSettings) { st.HistoryRounds, st.SummaryTriggerRounds = 2, 24 },
			func(i int) string { return fmt.Sprintf("订单 A-%03d 的退款多久到账？", i) }, 25, []int{20, 5}, 6000},
		{"by tokens", 6, func(st *domain.TenantSettings) {
			st.HistoryRounds, st.SummaryTriggerRounds, st.SummaryChunkTokens = 1, 4, 120
		},
			func(i int) string { return fmt.Sprintf("Ticket T-%03d: %s", i, words) }, 5, nil, 120},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			forEach(t, func(t *testing.T, e *env) {
				rec := recordSummaries(e, nil)
				var qs []string
				for i := 1; i <= tc.asks; i++ {
					qs = append(qs, tc.question(i))
				}
				askIdle(t, e, qs...)
				calls, outs, _ := rec.snapshot()
				require.GreaterOrEqual(t, len(calls), 3, "at least two chunks and a merge")
				chunks, merge := calls[:len(calls)-1], calls[len(calls)-1]
				var folded []string
				counter := tokens.ForModel(e.model.DefaultChatModel())
				limit := tc.limit
				for i, c := range chunks {
					assert.Empty(t, c.Previous, "a chunk is summarised alone")
					assert.Empty(t, c.Parts)
					assert.LessOrEqual(t, len(c.Items), 20)
					size := 0
					for _, it := range c.Items {
						folded = append(folded, it.Question)
						size += counter.Count(llm.SummaryLine(it))
					}
					if len(c.Items) > 1 {
						assert.LessOrEqual(t, size, limit, "chunk %d within the token bound", i)
					}
					if tc.wantSizes != nil {
						assert.Len(t, c.Items, tc.wantSizes[i])
					}
				}
				if tc.wantSizes != nil {
					assert.Len(t, chunks, len(tc.wantSizes))
				}
				assert.Equal(t, qs[:tc.wantFold], folded, "every folded round in exactly one chunk, in order")
				assert.Empty(t, merge.Items)
				assert.Equal(t, outs[:len(outs)-1], merge.Parts, "the merge gets every chunk's summary, in order")
				summary, version := summaryOf(t, e)
				assert.Equal(t, 1, version)
				assert.Equal(t, outs[len(outs)-1], summary, "the merged summary is written")
				for i := 1; i <= tc.wantFold; i++ {
					id := strings.TrimSuffix(strings.Fields(tc.question(i))[1], ":")
					assert.Contains(t, summary, id, "the merge keeps round %d", i)
				}
			}, func(_ *chat.Config, st *domain.TenantSettings) {
				st.HistoryStrategy, st.Summarizer, st.SummaryMaxChars = domain.StrategyHybrid, domain.SummarizerLLM, 20000
				tc.settings(st)
			})
		})
	}
}

// TestSummaryRegenerationCap: with SummaryMaxRegenerations = 1, the first
// LLM fold summarises rounds 1–2, the second re-summarises that summary
// with rounds 3–4, and the third does not re-summarise again: it drops
// the older material and summarises rounds 5–6 alone. The deterministic
// summariser never re-summarises, so it keeps the older lines.
func TestSummaryRegenerationCap(t *testing.T) {
	questions := []string{"订单 A-101 退款多久到账？", "订单 A-102 退款多久到账？", "订单 A-103 退款多久到账？", "订单 A-104 退款多久到账？",
		"订单 A-105 退款多久到账？", "订单 A-106 退款多久到账？", "订单 A-107 退款多久到账？"}
	tests := []struct {
		summarizer domain.Summarizer
		kept       []string
		dropped    []string
	}{
		{domain.SummarizerLLM, []string{"A-105", "A-106"}, []string{"A-101", "A-102", "A-103", "A-104"}},
		{domain.SummarizerDeterministic, []string{"A-101", "A-102", "A-103", "A-104", "A-105", "A-106"}, nil},
	}
	for _, tc := range tests {
		t.Run(string(tc.summarizer), func(t *testing.T) {
			forEach(t, func(t *testing.T, e *env) {
				rec := recordSummaries(e, nil)
				conv := e.conversation(t, alice)
				var versions []string
				for i, q := range questions {
					e.ask(t, alice, conv.ID, q)
					chat.WaitIdle(e.eng)
					if i == 2 || i == 4 || i == 6 {
						s, v := summaryOf(t, e)
						require.Equal(t, len(versions)+1, v)
						versions = append(versions, s)
					}
				}
				for _, k := range tc.kept {
					assert.Contains(t, versions[2], k)
				}
				for _, d := range tc.dropped {
					assert.NotContains(t, versions[2], d, "dropped past the cap, not summarised again")
				}
				calls, _, _ := rec.snapshot()
				if tc.summarizer != domain.SummarizerLLM {
					assert.Empty(t, calls)
					return
				}
				require.Len(t, calls, 3)
				assert.Empty(t, calls[0].Previous)
				assert.Equal(t, versions[0], calls[1].Previous, "one re-summarisation is allowed")
				assert.Empty(t, calls[2].Previous, "past the cap the previous summary is not re-summarised")
				assert.Equal(t, []string{questions[4], questions[5]}, []string{calls[2].Items[0].Question, calls[2].Items[1].Question})
			}, foldAfter(tc.summarizer, func(st *domain.TenantSettings) { st.SummaryMaxRegenerations = 1 }))
		})
	}
}

// TestSummarySerialised: two engines on one database and many goroutines
// fold one conversation at once while answers keep adding rounds. The
// summariser runs one call at a time for the conversation, every folded
// round reaches the model exactly once, and the final summary has exactly
// one line per covered round, in order: no fold overwrote another and no
// summary version was lost.
func TestSummarySerialised(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		other := e.newInstanceDeps(t, chat.Config{}, sharedBroker(e))
		baseline := goroutines()
		rec := recordSummaries(e, nil) // both engines share e.model
		rec.pause = 5 * time.Millisecond
		conv := e.conversation(t, alice)
		question := func(i int) string { return fmt.Sprintf("第 Q%03d 个问题：退款多久到账？", i) }
		for i := 1; i <= 24; i++ {
			e.ask(t, alice, conv.ID, question(i))
		}
		chat.WaitIdle(e.eng)
		_, v0 := summaryOf(t, e)
		require.Zero(t, v0, "nothing folded yet")
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		tenant := e.db.Client.Tenant.GetX(sys, demo.TenantID)
		st := tenant.Settings
		st.SummaryTriggerRounds = 1
		require.NoError(t, e.db.Client.Tenant.UpdateOne(tenant).SetSettings(st).Exec(sys))

		ctx, cancel := context.WithTimeout(as(alice), 60*time.Second) // hang guard
		defer cancel()
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		stop := make(chan struct{})
		for g := range 4 {
			eng := e.eng
			if g%2 == 1 {
				eng = other.eng
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					if err := chat.SummarizeNow(ctx, eng, conv.ID); err != nil {
						errs <- err
						return
					}
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond):
					}
				}
			}()
		}
		for i := 25; i <= 36; i++ {
			if i%2 == 0 {
				e.ask(t, alice, conv.ID, question(i))
				continue
			}
			res, err := other.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: fmt.Sprintf("k%d", i), Question: question(i)})
			require.NoError(t, err)
			e.wait(t, alice, res.Attempt.ID, 0)
		}
		close(stop)
		wg.Wait()
		chat.WaitIdle(e.eng)
		chat.WaitIdle(other.eng)
		require.NoError(t, chat.SummarizeNow(ctx, e.eng, conv.ID))
		close(errs)
		for err := range errs {
			assert.NoError(t, err)
		}

		calls, _, maxInflight := rec.snapshot()
		assert.Equal(t, 1, maxInflight, "one summarisation call at a time for the conversation")
		seen := map[string]int{}
		var order []string
		for _, c := range calls {
			for _, it := range c.Items {
				seen[it.Question]++
				order = append(order, it.Question)
			}
		}
		for q, n := range seen {
			assert.Equal(t, 1, n, "%s reached the model %d times", q, n)
		}
		c := e.db.Client.Conversation.GetX(as(alice), conv.ID)
		covered := e.db.Client.Message.Query().
			Where(message.ConversationID(conv.ID), message.RoleEQ(message.RoleUSER), message.SequenceNoLTE(c.SummaryMessageSequence)).
			CountX(as(alice))
		require.Greater(t, covered, 24, "rounds asked during the race were folded too")
		var want []string
		for i := 1; i <= covered; i++ {
			want = append(want, question(i))
		}
		assert.Equal(t, want, order, "every covered round summarised once, in order")
		lines := strings.Split(c.Summary, "\n")
		require.Len(t, lines, covered, "one summary line per covered round")
		for i, l := range lines {
			assert.Contains(t, l, fmt.Sprintf("Q%03d", i+1))
		}
		assert.Greater(t, c.SummaryVersion, 1, "several folds")
		assertGoroutinesBack(t, baseline)
	}, func(_ *chat.Config, st *domain.TenantSettings) {
		st.HistoryStrategy, st.Summarizer = domain.StrategyHybrid, domain.SummarizerLLM
		st.HistoryRounds, st.SummaryTriggerRounds = 2, 1000
		st.SummaryMaxChars, st.SummaryMaxRegenerations = 20000, 1000
	})
}

// TestSummaryLostSwapRecomputes: should the summary change between a
// fold's read and its write (a writer that bypassed the lock, such as one
// whose lock went with its connection), the fold's compare-and-swap loses
// and nothing of it is saved; the fold is recomputed from what won. Here
// the winner folded round 1 onto its answer (the path summary a fold of
// that path writes, and the conversation's columns): recomputed, the path
// has too few rounds below that summary to fold, and the next fold
// continues the summary that won, never the lost one.
func TestSummaryLostSwapRecomputes(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		const foreign = "用户陈述：外部写入的摘要"
		rec := recordSummaries(e, func(call int, out string) string {
			if call == 0 {
				sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
				c := e.db.Client.Conversation.Query().OnlyX(sys)
				first := e.db.Client.Message.Query().
					Where(message.ConversationID(c.ID), message.RoleEQ(message.RoleASSISTANT)).
					Order(ent.Asc(message.FieldSequenceNo)).FirstX(sys)
				e.db.Client.Message.UpdateOne(first).SetPathSummary(foreign).SetPathSummaryVersion(1).ExecX(sys)
				e.db.Client.Conversation.UpdateOne(c).SetSummary(foreign).
					SetSummaryMessageSequence(first.SequenceNo).AddSummaryVersion(1).ExecX(sys)
			}
			return out
		})
		askIdle(t, e, "订单 A-1 退款多久到账？", "订单 A-2 退款多久到账？", "订单 A-3 退款多久到账？", "订单 A-4 退款多久到账？")
		calls, _, _ := rec.snapshot()
		require.Len(t, calls, 2, "the lost fold is recomputed and finds nothing due; the fourth answer folds")
		assert.Empty(t, calls[0].Previous)
		assert.Equal(t, foreign, calls[1].Previous, "the next fold continues the summary that won")
		summary, version := summaryOf(t, e)
		assert.Equal(t, 2, version, "no version lost")
		for _, want := range []string{foreign, "A-2", "A-3"} {
			assert.Contains(t, summary, want)
		}
		assert.NotContains(t, summary, "A-1", "round 1 is the winner's; the lost fold left nothing")
		summarised := e.db.Client.Message.Query().Where(message.PathSummaryNotNil()).
			Order(ent.Asc(message.FieldSequenceNo)).AllX(as(alice))
		require.Len(t, summarised, 2, "the winner's and the next fold's path summaries, none of the lost fold")
		assert.Equal(t, summary, *summarised[1].PathSummary)
	}, foldAfter(domain.SummarizerLLM, nil))
}
