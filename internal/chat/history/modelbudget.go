package history

import (
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/tokens"
)

// modelInfo returns the registry's entry for model: its tokenizer and its
// context window, overridden by the server's configuration
// (RAGCHAT_MODEL_WINDOWS) and then by the tenant's modelContextWindows.
func (a *Assembler) modelInfo(model string, st domain.TenantSettings) tokens.ModelInfo {
	return tokens.LookupModel(model, a.ModelWindows, st.ModelContextWindows)
}

// chatFraming is what the chat template adds around the system and the
// user message, in tokens. It is counted into the prompt (the manifest's
// tokens.framing), so that the tenant's budget and the model's window
// both hold it. OpenAI's format adds 3 + 4 per message
// (llm.MessageFraming(2) = 11); other templates (Llama 3's headers and
// end-of-turn markers) add a few more, so 16 covers them.
const chatFraming = 16

// minAnswerTokens is the least an answer is given when a small window
// forces its reserve down.
const minAnswerTokens = 64

// answerWindowShare is the most of a model's window the answer reserve
// takes: the reserve scales with a small window, so that the prompt keeps
// three quarters of it.
const answerWindowShare = 4

// promptBudget is one prompt's budget against its model's window.
type promptBudget struct {
	window    int // the model's context window
	reserve   int // tokens reserved for the answer
	maxAnswer int // the tenant's maxAnswerTokens
	usable    int // what the prompt may use, framing included
}

// budgetFor returns the usable window (docs/ENGINE.md, "The budget
// split"): min(window − answer reserve, PromptTokenBudget), framing
// included. The reserve is MaxAnswerTokens, but never more than a quarter
// of the window (and never less than minAnswerTokens), so that a small
// window keeps room for the rules, the question and evidence.
func budgetFor(info tokens.ModelInfo, st domain.TenantSettings) promptBudget {
	b := promptBudget{window: info.Window, maxAnswer: st.MaxAnswerTokens}
	b.reserve = min(st.MaxAnswerTokens, max(minAnswerTokens, info.Window/answerWindowShare))
	b.usable = max(0, min(info.Window-b.reserve, st.PromptTokenBudget))
	return b
}

// answerLimit returns the answer's token limit for a prompt of
// promptTokens (framing included): whatever the window has left, up to
// MaxAnswerTokens. That is at least the reserve when the prompt kept to
// the usable window; less only when the never-cut rules and question
// alone overran it (at least minAnswerTokens is left, or Build fails the
// attempt).
func (b promptBudget) answerLimit(promptTokens int) int {
	return max(1, min(b.maxAnswer, b.window-promptTokens))
}
