package tokens

import "strings"

// Encoding names understood by Encoding.
const (
	O200KBase  = "o200k_base"
	CL100KBase = "cl100k_base"
)

// modelPrefixes maps model-name prefixes to their tiktoken encoding. It is
// checked in order, so the more specific prefixes come first.
var modelPrefixes = []struct{ prefix, encoding string }{
	{"gpt-4o", O200KBase},
	{"chatgpt-4o", O200KBase},
	{"gpt-4.1", O200KBase},
	{"gpt-4.5", O200KBase},
	{"gpt-5", O200KBase},
	{"o1", O200KBase},
	{"o3", O200KBase},
	{"o4", O200KBase},
	{"gpt-4", CL100KBase},
	{"gpt-3.5", CL100KBase},
	{"text-embedding-", CL100KBase},
}

// EncodingForModel returns the tiktoken encoding of a known OpenAI model, or
// "" when model is not one. Matching ignores case and any provider prefix
// ("openai/gpt-4o" is "gpt-4o").
func EncodingForModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, p := range modelPrefixes {
		if strings.HasPrefix(m, p.prefix) {
			return p.encoding
		}
	}
	return ""
}

// ForModel returns the counter for model: the exact tiktoken counter of a
// known OpenAI model, and Estimator for any other name (vLLM and Ollama
// model names, "offline-…"). Encodings are loaded once per process and
// shared. Should an embedded encoding fail to load, ForModel falls back to
// Estimator rather than fail.
func ForModel(model string) Counter {
	enc := EncodingForModel(model)
	if enc == "" {
		return Estimator{}
	}
	c, err := Encoding(enc)
	if err != nil {
		return Estimator{}
	}
	return c
}

// Default returns the cl100k_base counter, used for chunking and for the
// offline model (Estimator if the encoding cannot be loaded).
func Default() Counter {
	c, err := Encoding(CL100KBase)
	if err != nil {
		return Estimator{}
	}
	return c
}
