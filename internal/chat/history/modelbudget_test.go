package history

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/tokens"
)

// TestBudgetFor checks the usable window, min(window − answer reserve,
// prompt budget) with the framing inside it, the reserve's scaling to a
// quarter of a small window (never below minAnswerTokens), and the answer
// limit: what the window leaves after the prompt, up to maxAnswerTokens,
// so that prompt plus answer fit the window (docs/ENGINE.md, "The budget
// split").
func TestBudgetFor(t *testing.T) {
	st := domain.DefaultTenantSettings() // 6,000 prompt, 800 answer
	tests := []struct {
		name                    string
		window                  int
		wantReserve, wantUsable int
		prompt, wantAnswerLimit int
	}{
		{"a large window: the prompt budget caps", 128000, 800, 6000, 5455, 800},
		{"a 4,096-token window keeps the whole reserve", 4096, 800, 3296, 3296, 800},
		{"a small window: a quarter of it is reserved", 3000, 750, 2250, 2250, 750},
		{"Ollama's 2,048 default", 2048, 512, 1536, 1536, 512},
		{"a short prompt leaves the answer more, up to maxAnswerTokens", 2048, 512, 1536, 1000, 800},
		{"a tiny window keeps the least answer", 200, 64, 136, 136, 64},
		{"rules beyond the usable window shrink the answer", 1200, 300, 900, 1100, 100},
		{"never below one token", 1200, 300, 900, 1300, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := budgetFor(tokens.ModelInfo{Window: tt.window}, st)
			assert.Equal(t, tt.wantReserve, b.reserve)
			assert.Equal(t, tt.wantUsable, b.usable)
			assert.Equal(t, tt.wantAnswerLimit, b.answerLimit(tt.prompt))
			if tt.prompt <= b.usable {
				assert.LessOrEqual(t, tt.prompt+b.answerLimit(tt.prompt), tt.window)
				assert.GreaterOrEqual(t, b.answerLimit(tt.prompt), b.reserve, "a prompt within the usable window leaves the reserve")
			}
		})
	}

	t.Run("the tenant's budget holds the framing", func(t *testing.T) {
		st := st
		st.PromptTokenBudget = 1400
		b := budgetFor(tokens.ModelInfo{Window: 8192}, st)
		assert.Equal(t, 1400, b.usable, "the prompt, framing included, is within 1,400")
	})
}
