// Package prompt assembles the answer prompt of one RAG attempt under a
// token budget (docs/ENGINE.md D6, D7, D8, D10, D11, "The budget split").
//
// Assemble is a pure function. It always keeps the system rules and the
// current question, then splits the rest of the usable window between
// authorised evidence and the conversation by the tenant's ratios. When
// the conversation must be cut, it follows the fact priority: old
// assistant answers are shortened, then left out, then the summary goes,
// and only then whole rounds (the user's own turns). The user message uses
// the section format of package promptfmt, lowest authority first and the
// evidence last, next to where the answer starts:
//
//	<UNTRUSTED_CONVERSATION_CONTEXT>  (omitted when empty)
//	SUMMARY: …
//	USER: …
//	ASSISTANT (earlier answer, unverified): …
//	</UNTRUSTED_CONVERSATION_CONTEXT>
//
//	<UNTRUSTED_USER_INPUT>
//	the question
//	</UNTRUSTED_USER_INPUT>
//
//	<AUTHORIZED_KNOWLEDGE_CONTEXT>
//	[C1] title
//	chunk
//	</AUTHORIZED_KNOWLEDGE_CONTEXT>
//
// All untrusted text passes through promptfmt's neutralisation, so it cannot
// close its section or forge another one.
package prompt

import (
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/tokens"
)

// DefaultMaxRounds is the round limit when Budget.MaxRounds is not set.
const DefaultMaxRounds = 5

// Evidence is one retrieved chunk the viewer may read. Callers pass
// evidence ranked best first.
type Evidence struct {
	ChunkID         uuid.UUID
	DocumentID      uuid.UUID
	DocumentTitle   string
	DocumentVersion int
	Content         string
	// ContentHash is the chunk's content hash (internal/contenthash) of
	// its whole text, which Content may be a trimmed part of.
	ContentHash string
	Score       float64
	// AttachmentID is set when the evidence is a chunk of one of the
	// conversation's attachments (ChunkID is then the attachment chunk's
	// id, DocumentID is zero and DocumentTitle is the file name).
	AttachmentID uuid.UUID
}

// Round is one whole conversation round: a USER message and its COMPLETED
// answer. Callers pass rounds oldest first, with failed attempts, system
// events and rounds whose sources were revoked already left out.
type Round struct {
	UserSeq, AssistantSeq int64
	User                  string
	Assistant             string
	// Priority orders the rounds for cutting: when the budget forces it,
	// lower priorities lose their answer and then their place first, and
	// among equal priorities the older round does. Recency strategies
	// leave it zero; PRIORITIZED sets its scores.
	Priority float64
}

// Budget limits the prompt, in tokens of the input's Counter.
type Budget struct {
	// Total is the usable window, what the whole request may use: the
	// model's context window minus the answer reserve, capped by the
	// tenant's prompt budget.
	Total int
	// Framing is what the chat template adds around the system and the
	// user message, in tokens. It is part of the request, so it is
	// counted into the prompt (Manifest.Tokens.Framing) and within Total.
	Framing int
	// Ratios split Total between the sections (docs/ENGINE.md, "The
	// budget split"). The zero value means no split: evidence first, the
	// conversation gets what is left.
	Ratios domain.BudgetRatios
	// History further caps the conversation section (summary and rounds).
	// Zero or less means no cap beyond the split.
	History int
	// MaxRounds caps the number of rounds (zero or less means
	// DefaultMaxRounds); the rounds of lowest priority go first.
	MaxRounds int
}

// Input is everything one prompt is built from.
type Input struct {
	Question string
	Evidence []Evidence
	Rounds   []Round
	// Summary is the conversation summary ("" for none) and SummaryVersion
	// its version.
	Summary        string
	SummaryVersion int
	// RevokedRounds is how many rounds the caller left out because their
	// sources are no longer readable; it is only recorded in the manifest.
	RevokedRounds int
	Budget        Budget
	// Counter counts tokens (tokens.Default() when nil). Overheads of the
	// fixed texts are cached per Counter.Name().
	Counter tokens.Counter
	// Language selects the rules' language: "zh" or "en" (a "zh-…" or
	// "en-…" tag also works). Empty or anything else: detected from the
	// question.
	Language string
}

// Labeled is an included evidence chunk with its citation label. Its
// Content is what the prompt carried: when Trimmed, the beginning of the
// chunk that fitted (only the top chunk is ever trimmed).
type Labeled struct {
	Evidence
	Label   string
	Trimmed bool
}

// Result is the assembled prompt.
type Result struct {
	// System is the system message: the rules (in Manifest.Rules form),
	// never cut.
	System string
	// User is the user message: the labelled sections.
	User string
	// Language is the language of the rules ("zh" or "en").
	Language string
	// Evidence is the evidence included, in label order (C1 first).
	// Manifest.ChunkIDs lists the same chunks and is never nil.
	Evidence []Labeled
	// Rounds is the rounds included, oldest first (a subsequence of
	// Input.Rounds; an answer may have been shortened or omitted, as
	// Manifest.Rounds says).
	Rounds          []Round
	SummaryIncluded bool
	// Manifest records what the prompt was built from. Its token counts
	// are the sum of the counted pieces of System and User; see Assemble
	// for how closely that matches counting the whole texts.
	Manifest domain.ContextManifest
}
