package domain

// ContextManifest records what one attempt's prompt was built from, so that
// a wrong answer can be traced to its inputs (docs/ENGINE.md D15).
type ContextManifest struct {
	// Strategy is the history strategy the prompt was built with
	// (docs/ENGINE.md, "History strategies").
	Strategy HistoryStrategy `json:"strategy,omitempty"`
	// HistoryFromSeq and HistoryToSeq bound the message sequence numbers of
	// the whole rounds the prompt carried (0 when none).
	HistoryFromSeq int64 `json:"historyFromSeq"`
	HistoryToSeq   int64 `json:"historyToSeq"`
	// HistoryRounds is how many rounds were included; DroppedRounds how many
	// rounds the strategy offered were left out for budget; RevokedRounds
	// how many were left out because their sources are no longer readable.
	HistoryRounds int `json:"historyRounds"`
	DroppedRounds int `json:"droppedRounds"`
	RevokedRounds int `json:"revokedRounds"`
	// ParentID is the message the question followed on its path: the
	// leaf's parent, where the walk up the path started ("" for a root
	// question, and for a line written before messages had parents).
	// HistoryMessageIDs are the ids of the messages the prompt carried as
	// whole rounds, oldest first, each question before its answer: all of
	// them ancestors of the question (docs/ENGINE.md, "History on a
	// tree").
	ParentID          string   `json:"parentId,omitempty"`
	HistoryMessageIDs []string `json:"historyMessageIds,omitempty"`
	// Rounds are the included rounds, oldest first: their sequence
	// numbers, how much of the old answer was kept, and (PRIORITIZED) their
	// score.
	Rounds []ManifestRound `json:"rounds,omitempty"`
	// ShortenedAnswers and OmittedAnswers count the included rounds whose
	// old assistant answer was shortened or left out for budget, before
	// any user turn was (docs/ENGINE.md D10, "The budget split").
	ShortenedAnswers int `json:"shortenedAnswers"`
	OmittedAnswers   int `json:"omittedAnswers"`
	// Candidates are the rounds PRIORITIZED scored, newest first, chosen
	// or not, with the parts of their score.
	Candidates []RoundScore `json:"candidates,omitempty"`
	// SummaryVersion is the version of the summary used (0 = none; the
	// path summary's, or the conversation summary's) and
	// SummaryIncluded whether it fit the budget.
	SummaryVersion  int  `json:"summaryVersion"`
	SummaryIncluded bool `json:"summaryIncluded"`
	// SummaryMessageID is the ancestor whose path summary the prompt's
	// summary continues, when it was included ("" when there was none,
	// or for a conversation summary written before path summaries).
	SummaryMessageID string `json:"summaryMessageId,omitempty"`
	// ChunkIDs are the evidence chunks, in label order (C1 first).
	ChunkIDs []string `json:"chunkIds"`
	// TrimmedChunkIDs are the chunks of ChunkIDs that were trimmed to fit:
	// the prompt carried their beginning only. Only the top chunk is ever
	// trimmed, when it does not fit whole.
	TrimmedChunkIDs []string `json:"trimmedChunkIds,omitempty"`
	// DroppedChunks counts retrieved chunks left out for budget.
	DroppedChunks int `json:"droppedChunks"`
	// Rules is the form of the system rules the prompt carried: "full", or
	// "compact" when the full rules would take more than their share of a
	// small window ("" in manifests written before the compact form).
	Rules string `json:"rules,omitempty"`
	// Tokens per prompt section, counted with Tokenizer. Tokens.Total is
	// the whole request, the chat template's framing included: the
	// attempt's promptTokens, unless the model reported its own count.
	Tokens    SectionTokens `json:"tokens"`
	Tokenizer string        `json:"tokenizer"`
	// Budget is the usable prompt window the assembly worked under, framing
	// included: min(Window − AnswerReserve, the tenant's prompt budget).
	// Tokens.Total stays within it unless the never-cut rules and question
	// alone exceed it.
	Budget int `json:"budget"`
	// Model, Window and AnswerReserve are the chat model, its context
	// window and the tokens reserved for its answer.
	Model         string `json:"model,omitempty"`
	Window        int    `json:"window,omitempty"`
	AnswerReserve int    `json:"answerReserve,omitempty"`
	// Limits are the section limits after unused shares flowed
	// (docs/ENGINE.md, "The budget split"): System and Question are the
	// ratios' shares, Evidence and History what those sections could use.
	Limits SectionTokens `json:"limits"`
	// Imported marks the manifest of an answer that came from an import
	// (docs/API.md, "Export and import"): no prompt was built, and every
	// other field is zero.
	Imported bool `json:"imported,omitempty"`
}

// ManifestRound is one round a prompt carried.
type ManifestRound struct {
	UserSeq      int64 `json:"userSeq"`
	AssistantSeq int64 `json:"assistantSeq"`
	// Answer says how the old assistant answer reached the prompt:
	// AnswerFull, AnswerShortened or AnswerOmitted.
	Answer string `json:"answer"`
	// Score is the round's PRIORITIZED score (nil for other strategies).
	Score *float64 `json:"score,omitempty"`
}

// How an old assistant answer reached the prompt.
const (
	AnswerFull      = "full"
	AnswerShortened = "shortened"
	AnswerOmitted   = "omitted"
)

// RoundScore is why PRIORITIZED chose a round or not: Score is
// 0.6 × Similarity + 0.3 × shared terms (SharedTerms, saturating at 3) +
// 0.1 × Cited; Previous marks the immediately previous round, always
// chosen.
type RoundScore struct {
	UserSeq     int64   `json:"userSeq"`
	Score       float64 `json:"score"`
	Similarity  float64 `json:"similarity"`
	SharedTerms int     `json:"sharedTerms"`
	Cited       bool    `json:"cited"`
	Previous    bool    `json:"previous"`
	Chosen      bool    `json:"chosen"`
}

// SectionTokens counts prompt tokens by section. Framing is what the chat
// template adds around the two messages (0 in limits, and in manifests
// written before it was counted). In a manifest's Tokens, Total is the sum
// of the others; in its Limits, the usable window.
type SectionTokens struct {
	System   int `json:"system"`
	Question int `json:"question"`
	Evidence int `json:"evidence"`
	History  int `json:"history"`
	Summary  int `json:"summary"`
	Framing  int `json:"framing"`
	Total    int `json:"total"`
}
