package chat_test

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"

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

// chatFraming mirrors the engine's reserve for the chat template's
// per-message framing.
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

// TestSmallWindowPromptNeverOverflows: with a 3,000-token model, every
// request's prompt plus its answer limit fits the window, counted with the
// model's tokenizer on the whole texts sent; the prompt works under
// min(window − answer reserve − framing, prompt budget); and when history
// must be cut, old answers are cut while the user's turns stay. A model
// whose window cannot hold the rules and the question is never called.
func TestSmallWindowPromptNeverOverflows(t *testing.T) {
	const win = 3000
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		counter := tokens.ForModel(offline.ChatModel)
		var cut bool
		for i := range 8 {
			o := e.ask(t, alice, conv.ID, strategyQuestions[i%len(strategyQuestions)])
			require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
			m := o.attempt.ContextManifest
			require.NotNil(t, m)
			if o.attempt.Refused {
				continue
			}
			req := e.model.lastPrompt()
			whole := counter.Count(req.Messages[0].Content) + counter.Count(req.Messages[1].Content)
			assert.LessOrEqual(t, whole+req.MaxTokens+chatFraming, win, "round %d: prompt and answer fit the window", i)
			assert.Equal(t, win, m.Window)
			assert.Equal(t, 800, m.AnswerReserve)
			assert.Equal(t, win-800-chatFraming, m.Budget, "usable = window − reserve − framing, below the 6,000 budget")
			assert.LessOrEqual(t, m.Tokens.Total, m.Budget)
			assert.Equal(t, 800, req.MaxTokens)
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

	t.Run("a window too small for the rules fails without a model call", func(t *testing.T) {
		forEach(t, func(t *testing.T, e *env) {
			conv := e.conversation(t, alice)
			o := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
			assert.Equal(t, attempt.StatusFAILED, o.attempt.Status)
			require.NotNil(t, o.attempt.FailureCode)
			assert.Equal(t, domain.FailureModelError, domain.FailureCode(*o.attempt.FailureCode))
			assert.Zero(t, e.model.chatCalls())
		}, window(1000, 5))
	})
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
