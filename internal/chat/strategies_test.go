package chat_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/promptfmt"
)

// strategy sets the tenant's history strategy, K (HistoryRounds) and the
// summary trigger.
func strategy(s domain.HistoryStrategy, rounds, trigger int) envOption {
	return func(_ *chat.Config, st *domain.TenantSettings) {
		st.HistoryStrategy = s
		st.HistoryRounds = rounds
		st.SummaryTriggerRounds = trigger
	}
}

// promptLines returns the conversation lines of the last answer prompt,
// split into the summary's lines, the USER lines and the ASSISTANT lines.
func promptLines(t *testing.T, e *env) (summary, users, answers []string) {
	t.Helper()
	user := e.model.lastPrompt().Messages[1].Content
	body, ok := promptfmt.SectionBody(user, promptfmt.ConversationSection)
	if !ok {
		return nil, nil, nil
	}
	inSummary := false
	for _, l := range strings.Split(body, "\n") {
		switch {
		case strings.HasPrefix(l, "SUMMARY: "):
			inSummary = true
			summary = append(summary, strings.TrimPrefix(l, "SUMMARY: "))
		case strings.HasPrefix(l, "USER: "):
			inSummary = false
			users = append(users, strings.TrimPrefix(l, "USER: "))
		case strings.HasPrefix(l, "ASSISTANT (earlier answer, unverified): "):
			inSummary = false
			answers = append(answers, l)
		case inSummary:
			summary = append(summary, l)
		default:
			t.Fatalf("unlabelled conversation line %q", l)
		}
	}
	return summary, users, answers
}

// roundSeqs returns the user sequence numbers of the manifest's rounds.
func roundSeqs(m *domain.ContextManifest) []int64 {
	var out []int64
	for _, r := range m.Rounds {
		out = append(out, r.UserSeq)
	}
	return out
}

// strategyQuestions are six distinct questions about the demo knowledge.
var strategyQuestions = []string{
	"上传文件最大是多少？", "退款多久到账？", "什么是RAG？",
	"PostgreSQL如何创建HNSW索引？", "退款到账需要几天？", "RAG有什么用？",
}

// TestHistoryStrategiesReachThePrompt checks each history strategy by what
// reaches the answer prompt and the manifest, after six rounds (user
// sequence numbers 1, 3, …, 11), on both databases.
func TestHistoryStrategiesReachThePrompt(t *testing.T) {
	const next = "上传文件超过限制会返回什么错误码？"
	run := func(t *testing.T, e *env) (*domain.ContextManifest, []string, []string, []string) {
		conv := e.conversation(t, alice)
		for _, q := range strategyQuestions {
			o := e.ask(t, alice, conv.ID, q)
			require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
			chat.WaitIdle(e.eng) // the summariser has run
		}
		o := e.ask(t, alice, conv.ID, next)
		require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
		m := o.attempt.ContextManifest
		require.NotNil(t, m)
		s, u, a := promptLines(t, e)
		return m, s, u, a
	}

	t.Run("SLIDING_WINDOW keeps the last N whole rounds and no summary", func(t *testing.T) {
		forEach(t, func(t *testing.T, e *env) {
			m, summary, users, answers := run(t, e)
			assert.Equal(t, domain.StrategySlidingWindow, m.Strategy)
			assert.Equal(t, []int64{7, 9, 11}, roundSeqs(m))
			assert.Empty(t, summary, "no summary")
			assert.False(t, m.SummaryIncluded)
			assert.Equal(t, strategyQuestions[3:], users)
			assert.Len(t, answers, 3)
		}, strategy(domain.StrategySlidingWindow, 3, 1))
	})

	t.Run("SEMANTIC_SUMMARY carries the summary only", func(t *testing.T) {
		forEach(t, func(t *testing.T, e *env) {
			m, summary, users, answers := run(t, e)
			assert.Equal(t, domain.StrategySemanticSummary, m.Strategy)
			assert.Empty(t, users, "no verbatim user turn")
			assert.Empty(t, answers, "no verbatim answer")
			assert.Zero(t, m.HistoryRounds)
			assert.True(t, m.SummaryIncluded)
			joined := strings.Join(summary, "\n")
			for _, q := range strategyQuestions {
				assert.Contains(t, joined, q, "every earlier question is summarised, the newest too")
			}
			assert.NotContains(t, joined, "工作日", "the summary never copies answer text")
			in, _ := promptfmt.SectionBody(e.model.lastPrompt().Messages[1].Content, promptfmt.UserInputSection)
			assert.Equal(t, next, in, "the current question is there")
		}, strategy(domain.StrategySemanticSummary, 2, 1))
	})

	t.Run("HYBRID keeps the last K rounds verbatim and summarises everything older", func(t *testing.T) {
		forEach(t, func(t *testing.T, e *env) {
			m, summary, users, answers := run(t, e)
			assert.Equal(t, domain.StrategyHybrid, m.Strategy)
			assert.Equal(t, []int64{9, 11}, roundSeqs(m))
			assert.Equal(t, strategyQuestions[4:], users)
			assert.Len(t, answers, 2)
			assert.True(t, m.SummaryIncluded)
			assert.Positive(t, m.SummaryVersion, "the summariser folded older rounds")
			joined := strings.Join(summary, "\n")
			for _, q := range strategyQuestions[:4] {
				assert.Contains(t, joined, q, "everything older is in the summary")
			}
			assert.NotContains(t, joined, strategyQuestions[5], "the verbatim rounds are not summarised again")
		}, strategy(domain.StrategyHybrid, 2, 1))
	})

	t.Run("PRIORITIZED keeps the important rounds and the previous one, in order", func(t *testing.T) {
		forEach(t, func(t *testing.T, e *env) {
			m, summary, users, _ := run(t, e)
			assert.Equal(t, domain.StrategyPrioritized, m.Strategy)
			joined := strings.Join(summary, "\n")
			for _, q := range strategyQuestions[1:5] {
				assert.Contains(t, joined, q, "a round not chosen is still in the summary")
			}
			// The follow-up is about the upload limit: round 1 (the upload
			// question) is chosen over the more recent ones, and round 11,
			// the previous one, is always there; chronological order.
			assert.Equal(t, []int64{1, 11}, roundSeqs(m))
			assert.Equal(t, []string{strategyQuestions[0], strategyQuestions[5]}, users)
			require.Len(t, m.Candidates, 6, "every recent round was scored")
			byseq := map[int64]domain.RoundScore{}
			for _, c := range m.Candidates {
				byseq[c.UserSeq] = c
			}
			assert.True(t, byseq[11].Previous && byseq[11].Chosen)
			assert.True(t, byseq[1].Chosen)
			for _, seq := range []int64{3, 5, 7, 9} {
				assert.False(t, byseq[seq].Chosen, "round %d", seq)
				assert.Greater(t, byseq[1].Score, byseq[seq].Score, "round 1 outranks round %d", seq)
			}
			for _, r := range m.Rounds {
				require.NotNil(t, r.Score, "the manifest says why round %d was chosen", r.UserSeq)
				assert.Equal(t, byseq[r.UserSeq].Score, *r.Score)
			}
		}, strategy(domain.StrategyPrioritized, 2, 1))
	})
}
