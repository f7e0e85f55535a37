package domain

// ContextManifest records what one attempt's prompt was built from, so that
// a wrong answer can be traced to its inputs (docs/ENGINE.md D15).
type ContextManifest struct {
	// HistoryFromSeq and HistoryToSeq bound the message sequence numbers of
	// the whole rounds the prompt carried (0 when none).
	HistoryFromSeq int64 `json:"historyFromSeq"`
	HistoryToSeq   int64 `json:"historyToSeq"`
	// HistoryRounds is how many rounds were included; DroppedRounds how many
	// recent rounds were left out for budget; RevokedRounds how many were
	// left out because their sources are no longer readable.
	HistoryRounds int `json:"historyRounds"`
	DroppedRounds int `json:"droppedRounds"`
	RevokedRounds int `json:"revokedRounds"`
	// SummaryVersion is the conversation summary version used (0 = none) and
	// SummaryIncluded whether it fit the budget.
	SummaryVersion  int  `json:"summaryVersion"`
	SummaryIncluded bool `json:"summaryIncluded"`
	// ChunkIDs are the evidence chunks, in label order (C1 first).
	ChunkIDs []string `json:"chunkIds"`
	// DroppedChunks counts retrieved chunks left out for budget.
	DroppedChunks int `json:"droppedChunks"`
	// Tokens per prompt section, counted with Tokenizer.
	Tokens    SectionTokens `json:"tokens"`
	Tokenizer string        `json:"tokenizer"`
	// Budget is the prompt token budget the assembly worked under.
	Budget int `json:"budget"`
}

// SectionTokens counts prompt tokens by section.
type SectionTokens struct {
	System   int `json:"system"`
	Question int `json:"question"`
	Evidence int `json:"evidence"`
	History  int `json:"history"`
	Summary  int `json:"summary"`
	Total    int `json:"total"`
}
