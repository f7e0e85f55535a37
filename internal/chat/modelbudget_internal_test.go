package chat

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/tokens"
)

// TestBudgetFor checks the usable window, min(window − answer reserve −
// framing, prompt budget), the reserve's cap at half a small window, and
// the answer limit that keeps prompt plus answer within the window
// (docs/ENGINE.md, "The budget split").
func TestBudgetFor(t *testing.T) {
	st := domain.DefaultTenantSettings() // 6,000 prompt, 800 answer
	tests := []struct {
		name                    string
		window                  int
		wantReserve, wantUsable int
		prompt, wantAnswerLimit int
	}{
		{"a large window: the prompt budget caps", 128000, 800, 6000, 5439, 800},
		{"a small window caps", 3000, 800, 2184, 2100, 800},
		{"a tiny window halves the reserve", 1200, 592, 592, 592, 592},
		{"rules beyond the usable window shrink the answer", 1200, 592, 592, 900, 284},
		{"never below one token", 1200, 592, 592, 1300, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := budgetFor(tokens.ModelInfo{Window: tt.window}, st)
			assert.Equal(t, tt.wantReserve, b.reserve)
			assert.Equal(t, tt.wantUsable, b.usable)
			assert.Equal(t, tt.wantAnswerLimit, b.answerLimit(tt.prompt))
			if tt.prompt <= b.usable {
				assert.LessOrEqual(t, tt.prompt+b.answerLimit(tt.prompt)+chatFraming, tt.window)
			}
		})
	}
}
