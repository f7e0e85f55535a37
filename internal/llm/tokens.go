package llm

import "github.com/ragchat/ragchat/internal/tokens"

// TokenizerName names the encoding EstimateTokens counts with.
const TokenizerName = tokens.CL100KBase

// EstimateTokens counts the tokens of text with the cl100k_base BPE
// through internal/tokens (its tables are embedded, so this works
// offline).
func EstimateTokens(text string) int {
	if text == "" {
		return 0
	}
	return tokens.Default().Count(text)
}

// messageOverhead is the per-message framing OpenAI chat formats add.
const messageOverhead = 4

// EstimateMessageTokens estimates the prompt tokens of a chat request's
// messages, including a small per-message framing overhead.
func EstimateMessageTokens(msgs []Message) int {
	n := MessageFraming(0)
	for _, m := range msgs {
		n += messageOverhead + EstimateTokens(m.Content)
	}
	return n
}

// MessageFraming is what EstimateMessageTokens adds to the messages'
// contents for n messages.
func MessageFraming(n int) int { return 3 + messageOverhead*n }

// EstimateUsage returns an estimated Usage for a prompt and its completion.
func EstimateUsage(msgs []Message, completion string) Usage {
	p := EstimateMessageTokens(msgs)
	c := EstimateTokens(completion)
	return Usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c, Estimated: true}
}

// EstimateUsageFor is EstimateUsage for req, taking req.PromptTokens as the
// prompt's count when the caller gave one.
func EstimateUsageFor(req ChatRequest, completion string) Usage {
	if req.PromptTokens <= 0 {
		return EstimateUsage(req.Messages, completion)
	}
	c := EstimateTokens(completion)
	return Usage{PromptTokens: req.PromptTokens, CompletionTokens: c, TotalTokens: req.PromptTokens + c, Estimated: true}
}
