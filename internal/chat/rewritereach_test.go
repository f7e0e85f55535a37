package chat_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/sourceauth"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// The knowledge of the past-the-window conversation: a VPN device limit
// with its error code, and the expense rules the rounds in between ask
// about.
const (
	vpnTitle = "VPN 设备注册说明"
	vpnDoc   = `# VPN 设备注册说明

本文说明每个 VPN 账号可以注册的设备数量，以及超出数量限制时客户端的报错。

## 设备数量限制

每个 VPN 账号最多可以注册 3 台设备。注册第 4 台设备时，客户端会报错误码 VPN_DEVICE_LIMIT_EXCEEDED，并提示设备数量已达上限。

## 移除旧设备

在自助门户的“我的设备”页面移除一台不再使用的设备以后，就可以注册新设备。
`
	expenseTitle = "差旅报销规定"
	expenseDoc   = `# 差旅报销规定

本文说明出差期间住宿、餐补、交通费用的报销标准，以及报销单的提交期限和发票要求。

## 住宿标准

出差住酒店，一线城市每晚报销上限为 600 元，其他城市每晚报销上限为 400 元，超出部分由员工自行承担。

## 餐费补助

出差期间的餐补为每天 100 元，按出差天数计算，无需提供发票。

## 交通费用

出差期间的市内打车费可以凭行程单报销，每天不超过 150 元。

## 提交期限

报销单需要在出差结束后 30 天之内提交。逾期提交报销单时，报销系统会返回错误码 EXP_SUBMISSION_OVERDUE，需要部门负责人审批以后才能继续报销。

## 发票要求

发票丢失时，需要填写发票遗失说明，并由部门负责人签字确认后报销。
`
)

// The conversation of issue 16, item 2: one VPN round, six expense
// rounds, then a follow-up about the VPN round.
var (
	vpnQuestion      = "一个VPN账号最多可以注册几台设备？"
	expenseQuestions = []string{
		"出差住酒店每晚可以报销多少钱？", "出差的餐补每天多少钱？", "市内打车费可以报销吗？",
		"报销单需要在多久之内提交？", "发票丢失了应该怎么报销？", "逾期提交报销单会返回什么错误码？",
	}
	vpnFollowUp = "那第四台设备会报什么错？"
)

// ingestVPNAndExpenses adds the VPN and expense documents to e's
// knowledge base.
func ingestVPNAndExpenses(t *testing.T, e *env) {
	t.Helper()
	for _, d := range []knowledge.DocumentInput{
		{Title: vpnTitle, SourceURI: "https://help.example.com/zh/vpn-devices", Content: vpnDoc},
		{Title: expenseTitle, SourceURI: "https://help.example.com/zh/travel-expenses", Content: expenseDoc},
	} {
		_, err := e.svc.Ingest(as(admin), e.kb, d)
		require.NoError(t, err)
	}
}

// withSummaryTrigger sets the tenant's summary trigger.
func withSummaryTrigger(n int) envOption {
	return func(_ *chat.Config, st *domain.TenantSettings) { st.SummaryTriggerRounds = n }
}

// withStrategy sets the tenant's history strategy, leaving K and the
// trigger at their defaults (or at what an earlier option set).
func withStrategy(s domain.HistoryStrategy) envOption {
	return func(_ *chat.Config, st *domain.TenantSettings) { st.HistoryStrategy = s }
}

// sourceTitles returns the titles of an attempt's sources, in label order.
func sourceTitles(t *testing.T, e *env, o outcome) []string {
	t.Helper()
	views, err := sourceauth.OfAttempt(as(alice), e.db.Client, o.attempt.ID)
	require.NoError(t, err)
	var out []string
	for _, v := range views {
		out = append(out, v.Source.DocumentTitle)
	}
	return out
}

// TestFollowUpPastTheWindowResolvesToItsRound is issue 16, item 2, end to
// end with the offline model on both backends: round 1 asks about the VPN
// device limit, six expense rounds follow (more than the K = 5 newest
// rounds), and then "那第四台设备会报什么错？". Under PRIORITIZED the rewrite
// looks at the older candidates ranked by the strategy's score, under
// HYBRID and SEMANTIC_SUMMARY at the summary (its pending line, or the
// folded summary), so the standalone question carries the VPN topic, the
// VPN document is retrieved and the answer gives its error code rather
// than the expense rules. SLIDING_WINDOW keeps only its N rounds, for the
// rewrite too: nothing past the window reaches any model call.
func TestFollowUpPastTheWindowResolvesToItsRound(t *testing.T) {
	// through says how the VPN round reaches the answer prompt.
	type through int
	const (
		nothing through = iota // it does not (SLIDING_WINDOW)
		ranking                // PRIORITIZED chooses round 1 verbatim
		pending                // a summary line of a round not folded yet
		folded                 // the stored summary, folded by the summariser
	)
	tests := []struct {
		name string
		opts []envOption
		via  through
	}{
		{"PRIORITIZED ranks the round past the window", []envOption{withStrategy(domain.StrategyPrioritized)}, ranking},
		{"HYBRID finds it in the summary's pending lines", []envOption{withStrategy(domain.StrategyHybrid)}, pending},
		{"HYBRID finds it in the folded summary", []envOption{withStrategy(domain.StrategyHybrid), withSummaryTrigger(1)}, folded},
		{"SEMANTIC_SUMMARY finds it in the summary", []envOption{withStrategy(domain.StrategySemanticSummary)}, pending},
		{"SLIDING_WINDOW forgets what is past its window", []envOption{withStrategy(domain.StrategySlidingWindow)}, nothing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			forEach(t, func(t *testing.T, e *env) {
				ingestVPNAndExpenses(t, e)
				conv := e.conversation(t, alice)
				first := e.ask(t, alice, conv.ID, vpnQuestion)
				require.Equal(t, attempt.StatusCOMPLETED, first.attempt.Status)
				require.False(t, first.attempt.Refused)
				require.Contains(t, first.attempt.Answer, "3 台")
				for _, q := range expenseQuestions {
					o := e.ask(t, alice, conv.ID, q)
					require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
					require.False(t, o.attempt.Refused, q)
					require.NotContains(t, o.attempt.Answer, "设备", "no expense answer mentions devices")
					chat.WaitIdle(e.eng) // the summariser has run
				}

				o := e.ask(t, alice, conv.ID, vpnFollowUp)
				a := o.attempt
				require.Equal(t, attempt.StatusCOMPLETED, a.Status)
				require.NotNil(t, a.StandaloneQuestion)
				standalone := *a.StandaloneQuestion
				t.Logf("standalone question: %s\nanswer: %s", standalone, a.Answer)
				assert.True(t, a.RequiresHistory)
				m := a.ContextManifest
				require.NotNil(t, m)
				summary, users, _ := promptLines(t, e)
				switch tc.via {
				case nothing:
					assert.NotContains(t, standalone, "VPN", "a round past the sliding window reaches no model call")
					assert.NotContains(t, users, vpnQuestion)
					assert.Empty(t, summary)
					return
				case ranking:
					assert.Contains(t, roundSeqs(m), int64(1), "PRIORITIZED carries round 1 verbatim")
					assert.Contains(t, users, vpnQuestion)
					assert.Zero(t, m.SummaryVersion, "nothing was folded: the rewrite found round 1 by its ranking")
				case pending, folded:
					assert.NotContains(t, users, vpnQuestion, "round 1 is not verbatim")
					assert.Contains(t, strings.Join(summary, "\n"), vpnQuestion, "round 1 is in the summary")
					if tc.via == folded {
						assert.Positive(t, m.SummaryVersion, "the summariser folded round 1")
					} else {
						assert.Zero(t, m.SummaryVersion, "round 1 is a line of a round not folded yet")
					}
				}
				assert.Contains(t, standalone, "VPN", "the rewrite resolves to the VPN round")
				assert.Contains(t, standalone, "第四台设备")
				assert.NotContains(t, standalone, "报销", "no expense context")
				titles := sourceTitles(t, e, o)
				require.NotEmpty(t, titles)
				assert.Equal(t, vpnTitle, titles[0], "the VPN document is retrieved first")
				assert.NotContains(t, titles, expenseTitle, "the expense policy is not retrieved")
				assert.Contains(t, a.Answer, "VPN_DEVICE_LIMIT_EXCEEDED")
				assert.NotContains(t, a.Answer, "酒店")
				assert.NotContains(t, a.Answer, "报销")
			}, tc.opts...)
		})
	}
}

// embedLog records every embedding call's texts.
type embedLog struct {
	llm.Model
	mu    *sync.Mutex
	calls *[][]string
}

func (m embedLog) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	m.mu.Lock()
	*m.calls = append(*m.calls, slices.Clone(texts))
	m.mu.Unlock()
	return m.Model.Embed(ctx, texts)
}

// TestPrioritizedRewriteRanksFromTheWindowsRead: PRIORITIZED's ranking for
// the rewrite reuses the rounds the window already read (the context
// assembly sends no more statements than maxContextStatements) and embeds
// them once: the follow-up with the candidates before the rewrite, then
// the standalone question alone for the retrieval and for the prompt's
// choice. A question retrieved early (it cannot need history) is not
// ranked for the rewrite: one batch of the question with the candidates,
// for the prompt.
func TestPrioritizedRewriteRanksFromTheWindowsRead(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		db, n := countedDB(raw)
		var (
			mu    sync.Mutex
			calls [][]string
		)
		e := newEnvDeps(t, db, nil, func(d *chat.Deps) { d.Model = embedLog{Model: d.Model, mu: &mu, calls: &calls} },
			withStrategy(domain.StrategyPrioritized))
		ingestVPNAndExpenses(t, e)
		conv := e.conversation(t, alice)
		for _, q := range append([]string{vpnQuestion}, expenseQuestions...) {
			require.Equal(t, attempt.StatusCOMPLETED, e.ask(t, alice, conv.ID, q).attempt.Status)
		}
		chat.WaitIdle(e.eng)
		const rounds = 7
		standalone := "上传文件的大小上限是多少？超过上限时服务端返回哪个错误码？"
		require.False(t, llm.NeedsHistory(standalone, true))
		for _, tc := range []struct {
			question string
			batches  []int // texts per embedding call, in order
		}{
			{vpnFollowUp, []int{1 + rounds, 1, 1}},
			{standalone, []int{1, 1 + rounds}},
		} {
			_, err := e.eng.PreviewContext(as(alice), conv.ID, tc.question) // warm-up (the SQLite retriever's cache)
			require.NoError(t, err)
			mu.Lock()
			calls = nil
			mu.Unlock()
			n.Store(0)
			m, err := e.eng.PreviewContext(as(alice), conv.ID, tc.question)
			require.NoError(t, err)
			if tc.question == vpnFollowUp {
				require.Contains(t, roundSeqs(m), int64(1), "the follow-up's prompt carries round 1")
			}
			require.LessOrEqual(t, n.Load(), maxContextStatements[string(raw.Dialect)], "statements per context assembly")
			mu.Lock()
			var sizes []int
			for _, c := range calls {
				sizes = append(sizes, len(c))
			}
			mu.Unlock()
			slices.Sort(sizes)
			want := slices.Clone(tc.batches)
			slices.Sort(want)
			require.Equal(t, want, sizes, "embedding calls of %q", tc.question)
		}
	})
}

// failingRewriter fails every rewrite, counting the calls; the rest is
// the model's.
type failingRewriter struct {
	llm.Model
	calls *atomic.Int32
}

func (m failingRewriter) Rewrite(context.Context, llm.RewriteRequest) (llm.RewriteResult, error) {
	m.calls.Add(1)
	return llm.RewriteResult{}, errors.New("rewriter unavailable")
}

// TestPreviewWithAFailedRewrite: in a preview, as in an answer, a failed
// rewrite degrades to the original question (docs/ENGINE.md, "Ask, step by
// step", step 2), although a preview has no attempt to name in the log.
func TestPreviewWithAFailedRewrite(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		var calls atomic.Int32
		e := newEnvDeps(t, db, nil, func(d *chat.Deps) { d.Model = failingRewriter{Model: d.Model, calls: &calls} })
		conv := e.conversation(t, alice)
		require.Equal(t, attempt.StatusCOMPLETED, e.ask(t, alice, conv.ID, "上传文件最大是多少？").attempt.Status)
		chat.WaitIdle(e.eng)
		calls.Store(0)
		m, err := e.eng.PreviewContext(as(alice), conv.ID, "那超过以后返回什么错误码？")
		require.NoError(t, err)
		assert.Equal(t, int32(1), calls.Load(), "the follow-up went to the rewriter")
		assert.Equal(t, 1, m.HistoryRounds, "the prompt still carries the previous round")
	})
}

// The dialogue of issue 31, item 13, in both languages: round 1 on a VPN
// account's device limit, six expense rounds (one on a lost device, the
// last on an error code), then a follow-up that points back at the
// devices of round 1.
var referentDialogues = []struct {
	lang                string
	vpnTitle, expTitle  string
	vpnDoc, expDoc      string
	first               string
	expenses            []string
	followUp            string
	errorCode, expCode  string
	expTerm             string
	deviceExpenseAnswer string // a word of the lost-device round's answer
}{
	{
		lang:     "zh",
		vpnTitle: "VPN 设备数量限制", expTitle: "差旅报销制度",
		vpnDoc: `# VPN 设备数量限制

## 设备数

每个 VPN 账号最多可以注册 3 台设备。注册第 4 台设备时，客户端会报错误码 VPN-409-DEVICE-LIMIT。

## 移除设备

在自助门户的“我的设备”页面移除不再使用的设备以后，才能注册新设备。
`,
		expDoc: `# 差旅报销制度

## 住宿标准

出差住酒店，一线城市每晚报销上限为 600 元，其他城市每晚报销上限为 400 元。

## 餐费补助

出差期间的餐补为每天 100 元，按出差天数计算，无需提供发票。

## 设备遗失

出差途中遗失公司配发的电脑等设备，需要先向 IT 部门报告；个人设备的损失不予报销。

## 提交期限

报销单需要在出差结束后 30 天之内提交。逾期提交报销单时，报销系统会返回错误码 EXP-422-OVERDUE。
`,
		first: "一个VPN账号最多可以注册几台设备？",
		expenses: []string{
			"出差住酒店每晚可以报销多少钱？", "出差的餐补每天多少钱？", "出差时电脑设备丢了可以报销吗？",
			"报销单需要在多久之内提交？", "发票丢失了应该怎么报销？", "逾期提交报销单会返回什么错误码？",
		},
		followUp:  "那第四台设备会报什么错？",
		errorCode: "VPN-409-DEVICE-LIMIT", expCode: "EXP-422-OVERDUE", expTerm: "报销", deviceExpenseAnswer: "设备",
	},
	{
		lang:     "en",
		vpnTitle: "VPN device limit", expTitle: "Travel expenses",
		vpnDoc: `# VPN device limit

## Devices per account

Each VPN account may register at most 3 devices. Registering a fourth device fails with the error VPN-409-DEVICE-LIMIT.

## Removing a device

Remove a device you no longer use on the My devices page of the self-service portal before you register a new one.
`,
		expDoc: `# Travel expenses

## Hotels

Hotel stays are reimbursed up to 200 dollars per night.

## Meals

The meal allowance is 50 dollars per day of travel.

## Lost devices

A laptop or other company device lost while travelling must be reported to IT; personal devices are not reimbursed.

## Deadline

Expense reports must be submitted within 30 days after the trip. A late expense report is rejected with the error EXP-422-OVERDUE.
`,
		first: "How many devices can one VPN account register?",
		expenses: []string{
			"How much can I claim for a hotel per night?", "What is the daily meal allowance?", "Is a laptop lost while travelling reimbursed?",
			"When must expense reports be submitted?", "How are meals paid on a trip?", "What error does a late expense report get?",
		},
		followUp:  "What error does the fourth device get?",
		errorCode: "VPN-409-DEVICE-LIMIT", expCode: "EXP-422-OVERDUE", expTerm: "expense", deviceExpenseAnswer: "device",
	},
}

// TestFollowUpResolvesToTheRoundItMentions is issue 31, item 13, end to
// end with the default offline model on both backends and in both
// languages: after the dialogue above, the follow-up's rewrite names the
// VPN round although newer rounds share words with it (the lost device,
// the last round's error code), the VPN document is retrieved and cited,
// and its error code answers. Every strategy makes the same choice over
// what it kept; SLIDING_WINDOW (N = 5) kept no VPN round, and its rewrite
// stays within its window.
func TestFollowUpResolvesToTheRoundItMentions(t *testing.T) {
	strategies := []domain.HistoryStrategy{
		domain.StrategyPrioritized, domain.StrategyHybrid, domain.StrategySemanticSummary, domain.StrategySlidingWindow,
	}
	for _, d := range referentDialogues {
		for _, s := range strategies {
			t.Run(d.lang+"/"+string(s), func(t *testing.T) {
				t.Parallel()
				forEach(t, func(t *testing.T, e *env) {
					for _, doc := range []knowledge.DocumentInput{
						{Title: d.vpnTitle, SourceURI: "https://help.example.com/" + d.lang + "/vpn-device-limit", Content: d.vpnDoc},
						{Title: d.expTitle, SourceURI: "https://help.example.com/" + d.lang + "/travel-expenses", Content: d.expDoc},
					} {
						_, err := e.svc.Ingest(as(admin), e.kb, doc)
						require.NoError(t, err)
					}
					conv := e.conversation(t, alice)
					first := e.ask(t, alice, conv.ID, d.first)
					require.Equal(t, attempt.StatusCOMPLETED, first.attempt.Status)
					require.Contains(t, first.attempt.Answer, "3")
					for i, q := range d.expenses {
						o := e.ask(t, alice, conv.ID, q)
						require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
						require.False(t, o.attempt.Refused, q)
						if i == 2 {
							require.Contains(t, strings.ToLower(o.attempt.Answer), d.deviceExpenseAnswer, "the lost-device round mentions devices")
						}
						chat.WaitIdle(e.eng)
					}

					o := e.ask(t, alice, conv.ID, d.followUp)
					a := o.attempt
					require.Equal(t, attempt.StatusCOMPLETED, a.Status)
					require.NotNil(t, a.StandaloneQuestion)
					standalone := *a.StandaloneQuestion
					t.Logf("standalone question: %s\nanswer: %s", standalone, a.Answer)
					require.True(t, a.RequiresHistory, "the follow-up went to the rewriter")
					if s == domain.StrategySlidingWindow {
						assert.NotContains(t, standalone, "VPN", "a round past the sliding window reaches no model call")
						return
					}
					assert.Contains(t, standalone, "VPN", "the rewrite resolves to the VPN round")
					assert.NotContains(t, strings.ToLower(standalone), d.expTerm, "no expense context")
					if s == domain.StrategyPrioritized {
						assert.Contains(t, roundSeqs(a.ContextManifest), int64(1), "PRIORITIZED carries round 1")
					}
					titles := sourceTitles(t, e, o)
					require.NotEmpty(t, titles)
					assert.Equal(t, d.vpnTitle, titles[0], "the VPN document is retrieved and cited first")
					assert.Contains(t, a.Answer, d.errorCode)
					assert.NotContains(t, a.Answer, d.expCode)
				}, withStrategy(s))
			})
		}
	}
}
