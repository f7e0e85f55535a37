package chat

import "github.com/ragchat/ragchat/internal/promptfmt"

// citationFilter returns the filter an answer's stream passes the model's
// text through: it removes every citation label that names none of
// sources ("[C7]" when the prompt carried C1–C3), also when the model
// splits the label across deltas, before the text is streamed,
// checkpointed or saved. So the streamed text, the partial answer of a
// checkpoint and the saved answer are one text, and the answer cites only
// sources it was given (docs/API.md, "Consuming attemptEvents").
func citationFilter(sources []sourcePacket) *promptfmt.CitationFilter {
	known := make(map[string]bool, len(sources))
	for _, s := range sources {
		known[s.Label] = true
	}
	return promptfmt.NewCitationFilter(known)
}
