package chat

import (
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/tokens"
)

// modelInfo returns the registry's entry for model: its tokenizer and its
// context window, overridden by the server's configuration
// (RAGCHAT_MODEL_WINDOWS) and then by the tenant's modelContextWindows.
func (e *Engine) modelInfo(model string, st domain.TenantSettings) tokens.ModelInfo {
	return tokens.LookupModel(model, e.cfg.ModelWindows, st.ModelContextWindows)
}

// chatFraming is reserved out of the window for the chat template's
// per-message framing, which the prompt's count does not include
// (llm.EstimateMessageTokens counts 3 + 4 per message; two messages).
const chatFraming = 16

// minAnswerTokens is the least an answer is given when a small window
// forces its reserve down.
const minAnswerTokens = 64

// promptBudget is one prompt's budget against its model's window.
type promptBudget struct {
	window  int // the model's context window
	reserve int // tokens reserved for the answer
	usable  int // what the prompt may use
}

// budgetFor returns the usable window (docs/ENGINE.md, "The budget
// split"): min(window − answer reserve − framing, PromptTokenBudget). The
// reserve is MaxAnswerTokens, but never more than half of a small window,
// so that a prompt always has room.
func budgetFor(info tokens.ModelInfo, st domain.TenantSettings) promptBudget {
	b := promptBudget{window: info.Window, reserve: st.MaxAnswerTokens}
	if half := (info.Window - chatFraming) / 2; b.reserve > half {
		b.reserve = max(minAnswerTokens, half)
	}
	b.usable = max(0, min(info.Window-b.reserve-chatFraming, st.PromptTokenBudget))
	return b
}

// answerLimit returns the answer's token limit for a prompt of
// promptTokens: the reserve, or whatever the window has left when the
// never-cut rules and question alone overran the usable window (at least
// minAnswerTokens is left, or buildContext fails the attempt).
func (b promptBudget) answerLimit(promptTokens int) int {
	left := b.window - chatFraming - promptTokens
	return max(1, min(b.reserve, left))
}
