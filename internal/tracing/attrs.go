package tracing

import "go.opentelemetry.io/otel/attribute"

// Attribute keys of ragchat's spans. Every value is an id, a count, a
// duration, a name from a closed set (operation type, error code, model,
// statement) or a flag: never text a user wrote or a model produced.
const (
	// OperationType and OperationName are the GraphQL operation's type
	// (query, mutation, subscription) and name ("" when anonymous).
	OperationType = attribute.Key("graphql.operation.type")
	OperationName = attribute.Key("graphql.operation.name")
	// ErrorCode is the first error code of a response (extensions.code).
	ErrorCode = attribute.Key("ragchat.error.code")
	// ErrorCount is how many errors a response carried.
	ErrorCount = attribute.Key("ragchat.error.count")

	ConversationID = attribute.Key("ragchat.conversation.id")
	AttemptID      = attribute.Key("ragchat.attempt.id")
	MessageID      = attribute.Key("ragchat.message.id")
	KnowledgeBase  = attribute.Key("ragchat.knowledge_base.id")
	// FailureCode is how a failed attempt ended (FailureCode values).
	FailureCode = attribute.Key("ragchat.attempt.failure_code")
	// Outcome is how an ask step or attempt ended: ok, refused, failed,
	// replayed.
	Outcome = attribute.Key("ragchat.outcome")

	// HistoryRounds is how many rounds the history window held.
	HistoryRounds = attribute.Key("ragchat.history.rounds")
	// RequiresHistory and Rewritten describe the rewrite: whether the
	// question needed the history, and whether it was rewritten.
	RequiresHistory = attribute.Key("ragchat.rewrite.requires_history")
	Rewritten       = attribute.Key("ragchat.rewrite.rewritten")

	// Statement names the retrieval's statement; TopK is how many chunks
	// it asked for, Hits how many came back and Chunks how many passed
	// the evidence threshold.
	Statement = attribute.Key("ragchat.retrieve.statement")
	TopK      = attribute.Key("ragchat.retrieve.top_k")
	Hits      = attribute.Key("ragchat.retrieve.hits")
	Chunks    = attribute.Key("ragchat.retrieve.chunks")

	// Tokens per prompt section, as the context manifest counts them.
	TokensSystem   = attribute.Key("ragchat.prompt.tokens.system")
	TokensQuestion = attribute.Key("ragchat.prompt.tokens.question")
	TokensEvidence = attribute.Key("ragchat.prompt.tokens.evidence")
	TokensHistory  = attribute.Key("ragchat.prompt.tokens.history")
	TokensSummary  = attribute.Key("ragchat.prompt.tokens.summary")
	TokensFraming  = attribute.Key("ragchat.prompt.tokens.framing")
	TokensTotal    = attribute.Key("ragchat.prompt.tokens.total")
	TokensBudget   = attribute.Key("ragchat.prompt.tokens.budget")
	Sources        = attribute.Key("ragchat.prompt.sources")

	// Model is the chat model's name; TimeToFirstToken the milliseconds
	// from the model call to its first streamed text.
	Model            = attribute.Key("ragchat.model.name")
	TimeToFirstToken = attribute.Key("ragchat.model.time_to_first_token_ms")
	// Deltas is how many text deltas an answer streamed;
	// PromptTokens and AnswerTokens the model's usage.
	Deltas       = attribute.Key("ragchat.stream.deltas")
	PromptTokens = attribute.Key("ragchat.usage.prompt_tokens")
	AnswerTokens = attribute.Key("ragchat.usage.completion_tokens")
)
