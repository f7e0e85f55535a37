package summary

import (
	"github.com/ragchat/ragchat/internal/llm"
)

// Model is the model one fold asks for its LLM summaries: Name (the chat
// model the request and token counts name) and LLM, the engine's metered
// model of the conversation's attempt (its model profile); a nil LLM asks
// Summarizer.Model.
type Model struct {
	Name string
	LLM  llm.Summarizer
}

// summarizer returns the model m names, else s.Model.
func (s *Summarizer) summarizer(m Model) llm.Summarizer {
	if m.LLM != nil {
		return m.LLM
	}
	return s.Model
}
