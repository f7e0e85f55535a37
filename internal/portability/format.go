package portability

import "time"

// Version names the JSON format of Document. An import refuses any other.
const Version = "ragchat.conversation/v1"

// Format is an export format.
type Format string

// The export formats.
const (
	FormatJSON     Format = "JSON"
	FormatMarkdown Format = "MARKDOWN"
)

// ImportFormat is the format of an import's content.
type ImportFormat string

// The import formats.
const (
	ImportRagchatJSON ImportFormat = "RAGCHAT_JSON"
	ImportChatGPT     ImportFormat = "CHATGPT"
)

// Document is the JSON export of one conversation.
type Document struct {
	Version      string       `json:"version"`
	ExportedAt   time.Time    `json:"exportedAt"`
	Conversation Conversation `json:"conversation"`
	// Messages are every message of every branch, in sequence order: a
	// parent always comes before its children.
	Messages []Message `json:"messages"`
}

// Conversation is a conversation's metadata in a Document.
type Conversation struct {
	ID              string    `json:"id"`
	Title           string    `json:"title"`
	CreatedAt       time.Time `json:"createdAt"`
	UpdatedAt       time.Time `json:"updatedAt"`
	Status          string    `json:"status"`
	HistoryStrategy *string   `json:"historyStrategy"`
	KnowledgeBaseID string    `json:"knowledgeBaseId"`
	// CurrentLeafID is the message the conversation's current branch
	// ends at (null before the first question).
	CurrentLeafID *string `json:"currentLeafId"`
}

// Message is one message in a Document.
type Message struct {
	ID       string  `json:"id"`
	ParentID *string `json:"parentId"`
	// Role is USER or ASSISTANT.
	Role         string    `json:"role"`
	Content      string    `json:"content"`
	CreatedAt    time.Time `json:"createdAt"`
	SequenceNo   int64     `json:"sequenceNo"`
	EditedFromID *string   `json:"editedFromId"`
	// Model is the model that wrote an answer.
	Model *string `json:"model,omitempty"`
	// AttemptID is, for an answer, the attempt (of its question's
	// Attempts) that wrote it.
	AttemptID *string `json:"attemptId,omitempty"`
	// Attempts are, for a question, the attempts that answered it, the
	// oldest first, failed ones included.
	Attempts []Attempt `json:"attempts,omitempty"`
}

// Attempt is one attempt at answering a question.
type Attempt struct {
	ID string `json:"id"`
	// Status is PENDING, COMPLETED or FAILED.
	Status           string     `json:"status"`
	Model            *string    `json:"model"`
	PromptTokens     int        `json:"promptTokens"`
	CompletionTokens int        `json:"completionTokens"`
	TotalTokens      int        `json:"totalTokens"`
	Refused          bool       `json:"refused"`
	FailureCode      *string    `json:"failureCode,omitempty"`
	Imported         bool       `json:"imported,omitempty"`
	CreatedAt        time.Time  `json:"createdAt"`
	CompletedAt      *time.Time `json:"completedAt"`
	// Sources are the attempt's sources in rank order, as authorised at
	// export time.
	Sources []Source `json:"sources"`
}

// Source is one source of an answer. An unavailable one (its document
// was revoked or deleted) has only its label, rank, score and cited flag.
type Source struct {
	Label           string  `json:"label"`
	Rank            int     `json:"rank"`
	Score           float64 `json:"score"`
	Cited           bool    `json:"cited"`
	Available       bool    `json:"available"`
	DocumentID      *string `json:"documentId,omitempty"`
	DocumentTitle   string  `json:"documentTitle,omitempty"`
	DocumentVersion int     `json:"documentVersion"`
	Snippet         string  `json:"snippet,omitempty"`
}
