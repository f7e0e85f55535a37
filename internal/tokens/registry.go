package tokens

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// DefaultWindow is the context window assumed for a model the registry does
// not know and nobody configured: small enough for every model served
// today, and larger than the default prompt budget plus answer reserve.
const DefaultWindow = 8192

// Where a model's window came from, as ModelInfo.WindowSource reports it.
const (
	WindowBuiltin = "builtin"
	WindowDefault = "default"
	WindowConfig  = "config"
)

// ModelInfo is what the prompt assembly needs to know about a chat model:
// its context window (prompt and answer together, in tokens) and the
// counter of its tokenizer.
type ModelInfo struct {
	// Name is the model name as given.
	Name string
	// Window is the model's context window in tokens.
	Window int
	// WindowSource says where Window came from: WindowConfig (an override),
	// WindowBuiltin (the table below) or WindowDefault (DefaultWindow).
	WindowSource string
	// Counter counts tokens as the model's tokenizer does (exactly for
	// OpenAI models, conservatively for the others; see ForModel).
	Counter Counter
}

// builtinWindows are the context windows of common OpenAI-compatible chat
// models, matched by the longest prefix of the normalised name (lower case,
// without a provider prefix such as "openai/" or an Ollama tag after ":").
// The open-weight families are listed with the window their instruction
// models are trained for; a server may serve less (Ollama's default
// num_ctx is far smaller), in which case configure the served window with
// RAGCHAT_MODEL_WINDOWS or the tenant's modelContextWindows.
var builtinWindows = map[string]int{
	// OpenAI.
	"gpt-4o":                 128000,
	"chatgpt-4o":             128000,
	"gpt-4.1":                1047576,
	"gpt-4.5":                128000,
	"gpt-5":                  400000,
	"gpt-4-turbo":            128000,
	"gpt-4-1106":             128000,
	"gpt-4-0125":             128000,
	"gpt-4-32k":              32768,
	"gpt-4":                  8192,
	"gpt-3.5-turbo":          16385,
	"gpt-3.5-turbo-16k":      16385,
	"gpt-3.5-turbo-instruct": 4096,
	"o1":                     200000,
	"o1-mini":                128000,
	"o1-preview":             128000,
	"o3":                     200000,
	"o3-mini":                200000,
	"o4-mini":                200000,
	// Llama (vLLM, Ollama: "llama3.1:8b", "meta-llama/Llama-3.1-8B-Instruct").
	"llama2":     4096,
	"llama-2":    4096,
	"llama3":     8192,
	"llama-3":    8192,
	"llama3.1":   131072,
	"llama-3.1":  131072,
	"llama3.2":   131072,
	"llama-3.2":  131072,
	"llama3.3":   131072,
	"llama-3.3":  131072,
	"llama4":     131072,
	"llama-4":    131072,
	"meta-llama": 8192,
	// Qwen ("qwen2.5:7b-instruct", "Qwen/Qwen2.5-7B-Instruct").
	"qwen":    32768,
	"qwen2":   32768,
	"qwen2.5": 32768,
	"qwen3":   32768,
	// Mistral.
	"mistral":           32768,
	"mistral-nemo":      131072,
	"mistral-large":     131072,
	"mistral-small":     32768,
	"mixtral":           32768,
	"open-mistral-nemo": 131072,
	// The offline model.
	"offline": 8192,
}

// normalizeModel lower-cases a model name and strips a provider prefix
// ("openai/gpt-4o", "Qwen/Qwen2.5-7B-Instruct"). An Ollama tag
// ("llama3.1:8b") stays, so that an override may name one tag or, as a
// prefix, every tag.
func normalizeModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return m
}

// longestPrefix returns the value of the longest key of table that is a
// prefix of the normalised model name.
func longestPrefix(table map[string]int, model string) (int, bool) {
	m := normalizeModel(model)
	best, found := -1, 0
	for k, v := range table {
		k = normalizeModel(k)
		if k != "" && strings.HasPrefix(m, k) && len(k) > best {
			best, found = len(k), v
		}
	}
	return found, best >= 0
}

// LookupModel returns what the registry knows of model. Each override map
// (model name or name prefix → window in tokens) is checked in turn, later
// ones first, so that callers pass them from the most general to the most
// specific (the environment's, then a tenant's); then the builtin table;
// then DefaultWindow. Matching ignores case and a provider prefix, and the
// longest matching prefix wins ("qwen2.5" covers "qwen2.5:7b", which may
// have an entry of its own).
func LookupModel(model string, overrides ...map[string]int) ModelInfo {
	info := ModelInfo{Name: model, Counter: ForModel(model)}
	for i := len(overrides) - 1; i >= 0; i-- {
		if w, ok := longestPrefix(overrides[i], model); ok && w > 0 {
			info.Window, info.WindowSource = w, WindowConfig
			return info
		}
	}
	if w, ok := longestPrefix(builtinWindows, model); ok {
		info.Window, info.WindowSource = w, WindowBuiltin
		return info
	}
	info.Window, info.WindowSource = DefaultWindow, WindowDefault
	return info
}

// MinWindow is the smallest context window a configuration may declare.
const MinWindow = 256

// ParseWindows parses "name=tokens,name=tokens" (white space allowed) into
// a map, as RAGCHAT_MODEL_WINDOWS holds it. Every window must be at least
// MinWindow.
func ParseWindows(s string) (map[string]int, error) {
	out := map[string]int{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want name=tokens", part)
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < MinWindow {
			return nil, fmt.Errorf("%q: want a window of at least %d tokens", part, MinWindow)
		}
		out[name] = n
	}
	return out, nil
}

// FormatWindows writes windows back in ParseWindows's format, sorted by
// name (for logs).
func FormatWindows(windows map[string]int) string {
	names := make([]string, 0, len(windows))
	for n := range windows {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + strconv.Itoa(windows[n])
	}
	return strings.Join(parts, ",")
}
