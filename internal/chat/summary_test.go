package chat_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
)

func summaryEvery(strategy domain.HistoryStrategy, summarizer domain.Summarizer, rounds int) envOption {
	return func(_ *chat.Config, st *domain.TenantSettings) {
		st.HistoryStrategy = strategy
		st.Summarizer = summarizer
		st.HistoryRounds = rounds
		st.SummaryTriggerRounds = 1
	}
}

// askRounds asks n questions in conv.
func askRounds(t *testing.T, e *env, conv string, n int) {
	t.Helper()
	qs := []string{"上传文件最大是多少？", "退款多久到账？", "什么是RAG？"}
	c := e.conversationByID(t, conv)
	for i := range n {
		e.ask(t, alice, c, qs[i%len(qs)])
	}
}

// askIdle asks each question and waits until the work after the answer
// (the summary) is done, so that every fold happens at a known point.
func askIdle(t *testing.T, e *env, questions ...string) outcome {
	t.Helper()
	conv := e.conversation(t, alice)
	var last outcome
	for _, q := range questions {
		last = e.ask(t, alice, conv.ID, q)
		chat.WaitIdle(e.eng)
	}
	return last
}

// TestSummaryStrategies covers the summarisers and a strategy without a
// summary.
func TestSummaryStrategies(t *testing.T) {
	t.Run("llm", func(t *testing.T) {
		forEach(t, func(t *testing.T, e *env) {
			conv := e.conversation(t, alice)
			askRounds(t, e, conv.ID.String(), 6)
			c := waitSummary(t, e, conv.ID.String())
			assert.Contains(t, c.summary, "用户问", "the offline model's summary of intents")
			assert.NotContains(t, c.summary, "工作日", "no answer text")
		}, summaryEvery(domain.StrategyHybrid, domain.SummarizerLLM, 2))
	})
	t.Run("llmFallsBackToDeterministic", func(t *testing.T) {
		forEach(t, func(t *testing.T, e *env) {
			failing := &failingSummarizer{}
			e.model.Model = failingSummaryModel{Model: e.model.Model, calls: failing}
			conv := e.conversation(t, alice)
			askRounds(t, e, conv.ID.String(), 6)
			c := waitSummary(t, e, conv.ID.String())
			assert.Contains(t, c.summary, "用户问：")
			assert.GreaterOrEqual(t, failing.n.Load(), int32(3), "retried before falling back")
		}, summaryEvery(domain.StrategyHybrid, domain.SummarizerLLM, 2))
	})
	t.Run("slidingWindow", func(t *testing.T) {
		forEach(t, func(t *testing.T, e *env) {
			conv := e.conversation(t, alice)
			askRounds(t, e, conv.ID.String(), 6)
			last := e.ask(t, alice, conv.ID, "那超过以后返回什么错误码？")
			c := e.db.Client.Conversation.GetX(as(alice), conv.ID)
			assert.Empty(t, c.Summary, "a sliding window writes no summary")
			assert.Greater(t, last.attempt.ContextManifest.HistoryRounds, 2, "the window keeps up to N rounds, bounded by the budget")
		}, summaryEvery(domain.StrategySlidingWindow, domain.SummarizerDeterministic, 5))
	})
}

type summaryState struct {
	summary string
	version int
}

func waitSummary(t *testing.T, e *env, id string) summaryState {
	t.Helper()
	var s summaryState
	require.Eventually(t, func() bool {
		c := e.db.Client.Conversation.GetX(as(alice), e.conversationByID(t, id))
		s = summaryState{c.Summary, c.SummaryVersion}
		return c.SummaryVersion > 0
	}, 20*time.Second, 10*time.Millisecond)
	return s
}

type failingSummarizer struct{ n atomic.Int32 }

type failingSummaryModel struct {
	llm.Model
	calls *failingSummarizer
}

func (m failingSummaryModel) Summarize(context.Context, llm.SummarizeRequest) (string, error) {
	m.calls.n.Add(1)
	return "", errors.New("summariser down")
}

// summaryRecorder is an LLM summariser for tests: it records every call,
// answers with the wrapped model's summary passed through edit (when set),
// can pause inside a call, and tracks how many calls run at once.
type summaryRecorder struct {
	llm.Model
	edit  func(call int, out string) string
	pause time.Duration

	mu          sync.Mutex
	calls       []llm.SummarizeRequest
	outs        []string
	inflight    int
	maxInflight int
}

// recordSummaries installs a recorder around e's model.
func recordSummaries(e *env, edit func(call int, out string) string) *summaryRecorder {
	r := &summaryRecorder{Model: e.model.Model, edit: edit}
	e.model.Model = r
	return r
}

func (r *summaryRecorder) Summarize(ctx context.Context, req llm.SummarizeRequest) (string, error) {
	r.mu.Lock()
	call := len(r.calls)
	r.calls = append(r.calls, req)
	r.outs = append(r.outs, "")
	r.inflight++
	r.maxInflight = max(r.maxInflight, r.inflight)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.inflight--
		r.mu.Unlock()
	}()
	if r.pause > 0 {
		time.Sleep(r.pause) // widens the window in which a racing summariser would overlap
	}
	out, err := r.Model.Summarize(ctx, req)
	if err == nil && r.edit != nil {
		out = r.edit(call, out)
	}
	r.mu.Lock()
	r.outs[call] = out
	r.mu.Unlock()
	return out, err
}

func (r *summaryRecorder) snapshot() ([]llm.SummarizeRequest, []string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]llm.SummarizeRequest(nil), r.calls...), append([]string(nil), r.outs...), r.maxInflight
}
