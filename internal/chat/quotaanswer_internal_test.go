package chat

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/chat/history"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
)

// TestAnswerTokensStayWithinTheReservation: an answer's max_tokens is the
// window's limit (bc.MaxAnswer) and, under a HARD quota, no more than the
// reservation (prompt budget 6,000 + answer cap 800) leaves after the
// prompt; a prompt that leaves nothing fails before the model is called.
// Without a quota, or under a SOFT one, nothing changes.
func TestAnswerTokensStayWithinTheReservation(t *testing.T) {
	t.Parallel()
	st := domain.DefaultTenantSettings().WithDefaults()
	hard, soft := st, st
	hard.TokenQuotaUserTokens, soft.TokenQuotaUserTokens = 100_000, 100_000
	hard.TokenQuotaKind, soft.TokenQuotaKind = domain.QuotaHard, domain.QuotaSoft
	for _, c := range []struct {
		name     string
		st       domain.TenantSettings
		prompt   int
		maxAns   int
		want     int
		overflow bool
	}{
		{"no quota", st, 6_500, 800, 800, false},
		{"soft", soft, 6_500, 800, 800, false},
		{"hard, within the budget", hard, 1_000, 800, 800, false},
		{"hard, the window is the bound", hard, 1_000, 300, 300, false},
		{"hard, the question passed the budget", hard, 6_500, 800, 300, false},
		{"hard, one token left", hard, 6_799, 800, 1, false},
		{"hard, nothing left", hard, 6_800, 800, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			j := job{model: answerModel{settings: c.st}}
			bc := history.BuiltContext{MaxAnswer: c.maxAns}
			bc.Assembled.Manifest.Tokens.Total = c.prompt
			got, err := answerTokens(j, bc)
			if c.overflow {
				var le *llm.Error
				require.ErrorAs(t, err, &le)
				assert.Equal(t, llm.KindBadRequest, le.Kind)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

// TestAnswerCapIsTheResolvedModels: the cap an ask reserves and its
// answer is limited to is the resolved parameters' maxAnswerTokens (the
// member's, or the profile's default), else the tenant's.
func TestAnswerCapIsTheResolvedModels(t *testing.T) {
	t.Parallel()
	st := domain.DefaultTenantSettings().WithDefaults()
	n := 50_000
	assert.Equal(t, st.MaxAnswerTokens, answerCap(st, domain.ModelParameters{}))
	assert.Equal(t, n, answerCap(st, domain.ModelParameters{MaxAnswerTokens: &n}))
	st.MaxAnswerTokens = n
	assert.Equal(t, int64(st.PromptTokenBudget+n), askReservation(st))
}
