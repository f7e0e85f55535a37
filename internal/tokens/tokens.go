// Package tokens counts prompt tokens. Known OpenAI models are counted
// exactly with their tiktoken encoding (loaded from embedded BPE files, so
// it works offline); every other model (vLLM, Ollama, the offline model) is
// counted with Estimator, a fast heuristic that errs on the high side.
package tokens

// Counter counts the tokens a model would see for a piece of text.
// Implementations are safe for concurrent use.
type Counter interface {
	// Count returns the number of tokens in s.
	Count(s string) int
	// Name identifies the tokenization, e.g. "tiktoken/o200k_base" or
	// "estimate/v1". Two counters with the same name count alike.
	Name() string
}
