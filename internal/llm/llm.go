// Package llm is ragchat's one interface to language models: answer
// streaming, follow-up question rewriting, conversation summaries, titles and
// embeddings. Two implementations live in subpackages: offline (the default,
// deterministic, no keys) and openai (any OpenAI-compatible endpoint).
// Package llmfake is an in-process OpenAI-compatible server for tests.
package llm

import (
	"context"
	"strings"
)

// Role is the author of a chat message.
type Role string

// The chat message roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one chat message of a prompt.
type Message struct {
	Role    Role
	Content string
}

// ChatRequest asks for a streamed answer. An empty Model means the
// implementation's DefaultChatModel; MaxTokens 0 means no explicit cap.
type ChatRequest struct {
	Model       string
	Messages    []Message
	MaxTokens   int
	Temperature float32
	// TopP is the nucleus sampling bound (0: the provider's default).
	TopP float32
	// PromptTokens is the caller's own count of Messages' tokens, framing
	// included (0: unknown). A model whose provider reports no usage
	// estimates the prompt with it instead of tokenising the prompt again.
	PromptTokens int
}

// Usage counts the tokens of one model call. Estimated is true when the
// provider reported nothing and the numbers come from a local tokenizer.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
	Estimated        bool
}

// Add returns the sum of u and v; the sum is estimated if either part is.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		TotalTokens:      u.TotalTokens + v.TotalTokens,
		Estimated:        u.Estimated || v.Estimated,
	}
}

// Stream is a pull-based answer stream. Recv returns the next text delta,
// io.EOF at the normal end, or an *Error. Close releases the stream and, if
// it is still open, aborts the upstream request (closes the HTTP stream);
// it is safe to call more than once and concurrently with Recv. Usage is
// valid after Recv returned io.EOF. Model names the model that answered.
type Stream interface {
	Recv() (string, error)
	Usage() Usage
	Model() string
	Close() error
}

// Chat streams answers.
type Chat interface {
	// ChatStream starts an answer. Errors are *Error values.
	ChatStream(ctx context.Context, req ChatRequest) (Stream, error)
}

// Embedder turns texts into vectors. Every vector has exactly
// domain.EmbeddingDimensions floats and is L2-normalised; shorter provider
// vectors are zero-padded (cosine distance is unchanged).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	EmbeddingModel() string
}

// Round is one whole past question/answer round, oldest first in a history.
type Round struct {
	User      string
	Assistant string
}

// RewriteRequest asks to turn a follow-up question into a standalone one.
// The history strategy decides what of the conversation it carries
// (docs/ENGINE.md, "History strategies"): History always, Earlier and
// Summary when the strategy keeps older rounds that way. A rewriter
// chooses the round a follow-up refers to among all of them by what the
// follow-up mentions, and the previous round (the last of History) when
// nothing matches an older one more specifically (docs/ENGINE.md D5).
type RewriteRequest struct {
	Question string
	// History are the newest rounds, oldest first: the previous round is
	// the last.
	History []Round
	// Earlier are older rounds the strategy may carry into the answer
	// prompt, most relevant first (PRIORITIZED: its candidates beyond
	// History, ranked by its score against Question, at most K).
	Earlier []Round
	// Summary is the summary of older rounds that the answer prompt
	// carries, one item per line (llm.SummaryLine), "" when none.
	Summary string
	Model   string
}

// HasHistory reports whether req carries any history at all.
func (req RewriteRequest) HasHistory() bool {
	return len(req.History) > 0 || len(req.Earlier) > 0 || strings.TrimSpace(req.Summary) != ""
}

// RewriteResult is the standalone question to retrieve with.
// RequiresHistory reports whether the question depended on the history.
type RewriteResult struct {
	RequiresHistory    bool
	StandaloneQuestion string
	Usage              Usage
}

// Rewriter rewrites follow-up questions into standalone questions.
type Rewriter interface {
	Rewrite(ctx context.Context, req RewriteRequest) (RewriteResult, error)
}

// SummaryItem is one folded round: the user's turn (Question, the user's
// own words, which may state facts as well as ask) and what became of it.
// Outcome is for example "answered", "refused: no evidence" or "failed". It
// never carries assistant answer text.
type SummaryItem struct {
	Question string
	Outcome  string
}

// SummarizeRequest asks to fold Items, or to merge Parts (summaries of
// consecutive chunks of the folded rounds, oldest first), into the Previous
// summary; Previous is empty when older material is not carried (docs/ENGINE.md
// "Summarisers"). Keep lists the key entities (codes, amounts, IDs) the
// result must contain verbatim. The result has at most MaxChars runes
// (0 = DefaultSummaryMaxChars) and marks the user's statements apart from
// the assistant's outcomes (the labels of SummaryLine).
type SummarizeRequest struct {
	Previous string
	Items    []SummaryItem
	Parts    []string
	Keep     []string
	MaxChars int
	Model    string
}

// DefaultSummaryMaxChars caps a summary when SummarizeRequest.MaxChars is 0.
const DefaultSummaryMaxChars = 1200

// Summarizer writes the rolling conversation summary.
type Summarizer interface {
	Summarize(ctx context.Context, req SummarizeRequest) (string, error)
}

// Titler names a conversation after its first question.
type Titler interface {
	Title(ctx context.Context, firstQuestion string) (string, error)
}

// ModelTitler is an optional part of a Titler: a title asked of a named
// chat model ("" the provider's default), with the usage the provider
// reported. Model profiles title a conversation with its profile's model
// through it.
type ModelTitler interface {
	TitleWith(ctx context.Context, model, firstQuestion string) (string, Usage, error)
}

// Model is everything ragchat asks of a model provider.
type Model interface {
	Chat
	Embedder
	Rewriter
	Summarizer
	Titler
	// Name is "offline" or "openai".
	Name() string
	// DefaultChatModel is the chat model used when a request names none.
	DefaultChatModel() string
}
