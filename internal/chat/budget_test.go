package chat_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/prompt"
	"github.com/ragchat/ragchat/internal/promptfmt"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/tokens"
)

// chatFraming mirrors the engine's count of the chat template's framing
// around the two messages.
const chatFraming = 16

// window gives the offline chat model a context window of n tokens
// through the tenant's modelContextWindows, with K = rounds and a sliding
// window (so that every round offered is verbatim).
func window(n, rounds int) envOption {
	return func(_ *chat.Config, st *domain.TenantSettings) {
		st.ModelContextWindows = map[string]int{offline.ChatModel: n}
		st.HistoryStrategy = domain.StrategySlidingWindow
		st.HistoryRounds = rounds
	}
}

// TestSmallWindowPromptNeverOverflows runs eight rounds in Chinese and in
// English on small windows, a 3,000-token model and Ollama's long-time
// default of 2,048, over chunks of close to 400 tokens. Every round
// carries at least one chunk of evidence, which its answer cites, and an
// answer limit of at least 256 tokens; the compact rules are used; the
// answer reserve is a quarter of the window; every request's prompt plus
// its answer limit fits the window, counted with the model's tokenizer on
// the whole texts sent, framing included; the prompt works under
// min(window − reserve, prompt budget) and the attempt's promptTokens is
// the manifest's total; and when history must be cut, old answers are cut
// while the user's turns stay. A model whose window cannot hold the rules
// and the question is never called.
func TestSmallWindowPromptNeverOverflows(t *testing.T) {
	languages := []struct {
		lang      string
		questions []string
	}{
		{prompt.Chinese, smallWindowQuestionsZH},
		{prompt.English, smallWindowQuestionsEN},
	}
	for _, win := range []int{3000, 2048} {
		for _, l := range languages {
			t.Run(fmt.Sprintf("%d/%s", win, l.lang), func(t *testing.T) {
				forEach(t, func(t *testing.T, e *env) {
					e.ingestSmallWindowDocs(t)
					conv := e.conversation(t, alice)
					counter := tokens.ForModel(offline.ChatModel)
					reserve := win / 4
					var cut bool
					for i, q := range l.questions {
						o := e.ask(t, alice, conv.ID, q)
						require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
						m := o.attempt.ContextManifest
						require.NotNil(t, m)
						require.False(t, o.attempt.Refused, "round %d: %q carries evidence", i, q)
						require.NotEmpty(t, m.ChunkIDs, "round %d", i)
						assert.Contains(t, o.attempt.Answer, "[C1]", "round %d: the answer cites the evidence", i)

						req := e.model.lastPrompt()
						system, user := req.Messages[0].Content, req.Messages[1].Content
						assert.Len(t, promptfmt.ParseEvidence(user), len(m.ChunkIDs))
						assert.Equal(t, prompt.RulesCompact, m.Rules)
						assert.Equal(t, prompt.Rules(l.lang, prompt.RulesCompact), system)
						whole := counter.Count(system) + counter.Count(user) + chatFraming
						assert.LessOrEqual(t, whole+req.MaxTokens, win, "round %d: prompt and answer fit the window", i)
						assert.Equal(t, win, m.Window)
						assert.Equal(t, reserve, m.AnswerReserve, "a quarter of the window, below the 800 asked for")
						assert.Equal(t, win-reserve, m.Budget, "usable = window − reserve, below the 6,000 budget")
						assert.LessOrEqual(t, m.Tokens.Total, m.Budget)
						assert.LessOrEqual(t, whole, m.Budget)
						assert.Equal(t, chatFraming, m.Tokens.Framing)
						assert.Equal(t, m.Tokens.Total, o.attempt.PromptTokens)
						assert.GreaterOrEqual(t, req.MaxTokens, max(256, reserve))
						assert.LessOrEqual(t, req.MaxTokens, 800, "never beyond maxAnswerTokens")
						_, users, answers := promptLines(t, e)
						assert.Len(t, users, m.HistoryRounds, "every kept round has its user turn")
						if m.ShortenedAnswers+m.OmittedAnswers > 0 {
							cut = true
							n := 0
							for _, a := range answers {
								if strings.HasSuffix(a, "…[shortened]") || strings.HasSuffix(a, "[omitted]") {
									n++
								}
							}
							assert.Equal(t, m.ShortenedAnswers+m.OmittedAnswers, n)
						}
					}
					assert.True(t, cut, "the small window forced old answers to be cut")
				}, window(win, 8))
			})
		}
	}

	t.Run("a window too small for the rules fails without a model call", func(t *testing.T) {
		forEach(t, func(t *testing.T, e *env) {
			conv := e.conversation(t, alice)
			o := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
			assert.Equal(t, attempt.StatusFAILED, o.attempt.Status)
			require.NotNil(t, o.attempt.FailureCode)
			assert.Equal(t, domain.FailureModelError, domain.FailureCode(*o.attempt.FailureCode))
			assert.Zero(t, e.model.chatCalls())
		}, window(300, 5))
	})
}

// TestTopChunkTrimmedToFit: when the tenant's ratios leave evidence less
// than the top chunk needs on a 2,048-token window, the chunk is trimmed
// to fit rather than dropped: the prompt carries its beginning with a
// mark, the manifest lists it as trimmed, its source is C1, and the
// answer cites it; in Chinese and English, on both backends.
func TestTopChunkTrimmedToFit(t *testing.T) {
	capEvidence := func(_ *chat.Config, st *domain.TenantSettings) {
		st.BudgetRatios.EvidenceCap = st.BudgetRatios.EvidenceFloor // 0.15 of 1,536: 230 tokens
	}
	for _, q := range []string{smallWindowQuestionsZH[0], smallWindowQuestionsEN[0]} {
		t.Run(prompt.DetectLanguage(q), func(t *testing.T) {
			forEach(t, func(t *testing.T, e *env) {
				e.ingestSmallWindowDocs(t)
				conv := e.conversation(t, alice)
				o := e.ask(t, alice, conv.ID, q)
				require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
				require.False(t, o.attempt.Refused, "the top chunk is carried, trimmed")
				m := o.attempt.ContextManifest
				require.NotNil(t, m)
				require.Len(t, m.ChunkIDs, 1)
				assert.Equal(t, m.ChunkIDs, m.TrimmedChunkIDs)
				counter, k := tokens.ForModel(offline.ChatModel), promptfmt.KnowledgeSection
				frame := counter.Count(promptfmt.Open(k)+"\n") + counter.Count("\n"+promptfmt.Close(k))
				assert.LessOrEqual(t, m.Tokens.Evidence-frame, m.Limits.Evidence, "within the evidence limit")
				assert.Greater(t, m.Tokens.Evidence-frame, m.Limits.Evidence/2, "most of it used")

				ev := promptfmt.ParseEvidence(e.model.lastPrompt().Messages[1].Content)
				require.Len(t, ev, 1)
				assert.True(t, strings.HasSuffix(ev[0].Content, "…"), "the trimmed chunk ends with the mark: %q", ev[0].Content)
				chunk, err := e.db.Client.Chunk.Get(as(alice), uuid.MustParse(m.ChunkIDs[0]))
				require.NoError(t, err)
				kept := strings.TrimSuffix(ev[0].Content, "…")
				assert.True(t, strings.HasPrefix(strings.TrimSpace(chunk.Content), kept), "the beginning of the stored chunk")
				assert.Less(t, len(kept), len(strings.TrimSpace(chunk.Content)))

				sources, err := o.attempt.QuerySources().All(as(alice))
				require.NoError(t, err)
				require.Len(t, sources, 1)
				assert.Equal(t, "C1", sources[0].Label)
				assert.Equal(t, chunk.ID, *sources[0].ChunkID)
				assert.Contains(t, o.attempt.Answer, "[C1]")
			}, window(2048, 8), capEvidence)
		})
	}
}

// firstAnswer answers the first question with a fixed text, then defers
// to the offline model.
type firstAnswer struct {
	llm.Model
	text  string
	calls atomic.Int32
}

func (f *firstAnswer) ChatStream(ctx context.Context, req llm.ChatRequest) (llm.Stream, error) {
	if f.calls.Add(1) == 1 {
		return &cannedStream{text: f.text}, nil
	}
	return f.Model.ChatStream(ctx, req)
}

// cannedStream streams one fixed text.
type cannedStream struct {
	text string
	done bool
}

func (s *cannedStream) Recv() (string, error) {
	if s.done {
		return "", io.EOF
	}
	s.done = true
	return s.text, nil
}
func (s *cannedStream) Usage() llm.Usage { return llm.Usage{} }
func (s *cannedStream) Model() string    { return "canned" }
func (s *cannedStream) Close() error     { return nil }

// TestEvidenceOutranksOldAnswer: an earlier answer that contradicts the
// current evidence reaches the prompt labelled as an unverified earlier
// answer, in the conversation section, before the question and the
// evidence, which comes last; the rules say evidence wins; and the
// offline model's answer follows the evidence (docs/ENGINE.md D10).
func TestEvidenceOutranksOldAnswer(t *testing.T) {
	const wrong = "单个上传文件最大为 50MB [C1]。"
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		e.model.Model = &firstAnswer{Model: e.model.Model, text: wrong}
		conv := e.conversation(t, alice)
		first := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		require.Equal(t, wrong, first.attempt.Answer)

		next := e.ask(t, alice, conv.ID, "上传文件最大到底是多少？")
		require.Equal(t, attempt.StatusCOMPLETED, next.attempt.Status)
		req := e.model.lastPrompt()
		system, user := req.Messages[0].Content, req.Messages[1].Content

		history, ok := promptfmt.SectionBody(user, promptfmt.ConversationSection)
		require.True(t, ok)
		assert.Contains(t, history, "ASSISTANT (earlier answer, unverified): "+wrong, "the old answer is labelled as unverified")
		assert.Contains(t, history, "USER: 上传文件最大是多少？")
		knowledge, ok := promptfmt.SectionBody(user, promptfmt.KnowledgeSection)
		require.True(t, ok)
		assert.Contains(t, knowledge, "20MB", "the evidence says 20MB")
		conv0 := strings.Index(user, promptfmt.Open(promptfmt.ConversationSection))
		q := strings.Index(user, promptfmt.Open(promptfmt.UserInputSection))
		k := strings.Index(user, promptfmt.Open(promptfmt.KnowledgeSection))
		assert.True(t, conv0 < q && q < k, "history first, the evidence last")
		assert.Equal(t, prompt.SystemRules(prompt.Chinese), system)
		assert.Contains(t, system, "授权证据 > 用户明确陈述的信息 > 会话摘要 > 旧的助手回答")
		assert.Contains(t, system, "与 AUTHORIZED_KNOWLEDGE_CONTEXT 矛盾时，以证据为准")

		assert.Contains(t, next.attempt.Answer, "20MB", "the answer follows the evidence")
		assert.NotContains(t, next.attempt.Answer, "50MB", "not the old answer")
	})
}
