package chat_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/tokens"
	"github.com/ragchat/ragchat/internal/viewer"
)

// budgetQuestionsEN are English questions about the demo knowledge.
var budgetQuestionsEN = []string{
	"What is the maximum upload file size?", "How long does a refund take?",
	"What error does an oversized upload return?", "Can refunds go back to my bank card?",
	"How large can a batch upload be?", "Do holidays delay a refund?",
}

// setPromptBudget sets the demo tenant's promptTokenBudget.
func (e *env) setPromptBudget(t *testing.T, n int) {
	t.Helper()
	ctx := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	tn, err := e.db.Client.Tenant.Get(ctx, demo.TenantID)
	require.NoError(t, err)
	st := tn.Settings
	st.PromptTokenBudget = n
	require.NoError(t, e.db.Client.Tenant.UpdateOneID(demo.TenantID).SetSettings(st).Exec(ctx))
}

// TestPromptTokensWithinTenantBudget: the tenant's promptTokenBudget caps
// what is sent, the chat template's framing included (issue 16, item 4).
// After a six-round Chinese or English conversation, the last question is
// answered again (retried, so the history stays the same) under several
// budgets: exactly what the whole prompt needs, a little less, and 1,400
// and 900. On both backends, every attempt's promptTokens is at most the
// budget and equals the manifest's total, whose framing is counted; the
// texts sent, counted whole with the model's tokenizer, plus the framing,
// are never more than that total.
func TestPromptTokensWithinTenantBudget(t *testing.T) {
	histories := map[string][]string{"zh": strategyQuestions, "en": budgetQuestionsEN}
	counter := tokens.ForModel(offline.ChatModel)
	window := func(_ *chat.Config, st *domain.TenantSettings) {
		st.HistoryStrategy = domain.StrategySlidingWindow
		st.HistoryRounds = 5
	}
	for _, lang := range []string{"zh", "en"} {
		t.Run(lang, func(t *testing.T) {
			forEach(t, func(t *testing.T, e *env) {
				conv := e.conversation(t, alice)
				var last outcome
				for _, q := range histories[lang] {
					last = e.ask(t, alice, conv.ID, q)
					require.Equal(t, attempt.StatusCOMPLETED, last.attempt.Status)
				}
				retry := func(t *testing.T, budget int) (*domain.ContextManifest, outcome) {
					t.Helper()
					e.setPromptBudget(t, budget)
					res, err := e.eng.Retry(as(alice), chat.RetryInput{AttemptID: last.attempt.ID, ClientRequestID: uuid.NewString()})
					require.NoError(t, err)
					o := e.wait(t, alice, res.Attempt.ID, 0)
					require.Equal(t, attempt.StatusCOMPLETED, o.attempt.Status)
					require.False(t, o.attempt.Refused)
					require.NotNil(t, o.attempt.ContextManifest)
					return o.attempt.ContextManifest, o
				}
				check := func(t *testing.T, budget int, m *domain.ContextManifest, o outcome) {
					t.Helper()
					req := e.model.lastPrompt()
					whole := counter.Count(req.Messages[0].Content) + counter.Count(req.Messages[1].Content) + chatFraming
					assert.Equal(t, budget, m.Budget, "the tenant's budget is the usable window")
					assert.LessOrEqual(t, o.attempt.PromptTokens, budget, "promptTokens ≤ promptTokenBudget")
					assert.Equal(t, m.Tokens.Total, o.attempt.PromptTokens, "the manifest's total is what was sent")
					assert.Equal(t, chatFraming, m.Tokens.Framing)
					tk := m.Tokens
					assert.Equal(t, tk.System+tk.Framing+tk.Question+tk.Evidence+tk.History+tk.Summary, tk.Total)
					assert.LessOrEqual(t, whole, tk.Total, "never undercounted")
				}

				// The budget that holds the whole prompt exactly: what it
				// needs under the default budget, then under that budget
				// (the rules may turn compact) until it no longer changes.
				need := last.attempt.ContextManifest.Tokens.Total
				for range 3 {
					m, o := retry(t, need)
					check(t, need, m, o)
					if m.Tokens.Total == need {
						break
					}
					need = m.Tokens.Total
				}
				for _, budget := range []int{need, need - 1, need - 10, 1400, 900} {
					t.Run(fmt.Sprint(budget), func(t *testing.T) {
						m, o := retry(t, budget)
						check(t, budget, m, o)
						if budget == need {
							assert.Equal(t, need, m.Tokens.Total, "the whole prompt, exactly at the budget")
						}
					})
				}
			}, window)
		})
	}
}
