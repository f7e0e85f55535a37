package config

import (
	"fmt"

	"github.com/ragchat/ragchat/internal/tokens"
)

// modelWindows reads RAGCHAT_MODEL_WINDOWS: "name=tokens,name=tokens",
// context windows that override the model registry's (a name also covers
// every model it is a prefix of, e.g. "qwen2.5=8192" for "qwen2.5:7b").
// Set it for a server that serves less than a model's full window (an
// Ollama num_ctx, a vLLM --max-model-len) or for a model the registry does
// not know. A tenant's modelContextWindows override these in turn
// (docs/ENGINE.md, "The budget split").
func modelWindows(e *env) map[string]int {
	s := e.str("RAGCHAT_MODEL_WINDOWS", "")
	if s == "" {
		return nil
	}
	w, err := tokens.ParseWindows(s)
	if err != nil {
		e.errs = append(e.errs, fmt.Errorf("RAGCHAT_MODEL_WINDOWS: %w", err))
		return nil
	}
	return w
}
