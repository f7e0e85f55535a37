// Package chat is ragchat's conversation engine: the multi-turn RAG flow of
// docs/ENGINE.md (design basis D1–D17) as plain Go, with no GraphQL in it.
// docs/ENGINE.md opens with a table of the ask's steps and the functions
// and files that take them. The engine holds:
//
//   - conversations: create, rename, archive, delete, expiry and status
//     (conversation.go, convupdate.go; the computed status is
//     internal/authz's StatusAt), and titles written
//     after the first answer (aftercompletion.go);
//   - the ask: validation against Limits (limits.go), the conversation's row
//     and settings in one read (asktarget.go), the rate charge
//     (askcharge.go, internal/askrate), the sequence number (sequence.go)
//     and the one-statement write on PostgreSQL (askstatement.go); retry
//     (attempts.go) and cancel, also of a run on another instance
//     (control.go);
//   - the message tree (docs/ENGINE.md, "Message trees"): asking below a
//     chosen message, editing a question and selecting a branch through
//     the ask's own write (branches.go), regenerating at any depth
//     (attempts.go), and conversations written before trees made single paths
//     before they are written or read (branches.go, internal/chat/
//     treebackfill); the tree's reads are internal/chat/tree's;
//   - the run of an attempt: its lease and context (run.go), rewrite,
//     retrieval and prompt (answer.go, context.go, embedcheck.go,
//     retriever.go), streaming with checkpoints (progress.go), and the
//     COMPLETED, FAILED or CANCELLED write that survives a database outage
//     (complete.go, durable.go), then the summary and title
//     (aftercompletion.go);
//   - delivery: the attempt stream's topic and events (events.go,
//     deltaevent.go), the attempt stream with resume and live
//     re-authorised sources (subscribeattempt.go, sources.go,
//     outcomes.go); the engine publishes its conversations' changes into
//     the feed (internal/feed, Deps.Feed), which streams the conversation
//     and viewer feeds;
//   - metering: the answer's cap and reservation, and the quota.Charge
//     every call of an attempt is metered with (quota.go, modelchoice.go);
//     the ledger, the reservations, their settlement, side calls and
//     prices are internal/quota's Meter, and the viewers' and admins'
//     usage, grants, overrides and reports, and the reconciliation of what
//     a crash left open, its Service;
//   - the reaper and purge (background.go); cachesize.go reports the
//     engine's caches.
//
// Beside the engine, not in it: feedback on an exact attempt
// (internal/feedback), forks that copy a path with re-authorised sources
// (internal/fork), the admins' listing of conversations and feedback
// summary (internal/adminreport), an attempt's staleness
// (internal/staleness), the re-authorisation of sources
// (internal/sourceauth), the conversation and viewer feeds (internal/feed)
// and the rules of conversation rows that several
// of these share (internal/conversations).
//
// What history reaches a prompt and how the prompt context is assembled
// are internal/chat/history's; how summaries are folded is
// internal/chat/summary's. The engine wires both once, in New.
//
// Every method takes the acting viewer from ctx (internal/viewer); Ent
// privacy policies do the row filtering, so a conversation of another
// tenant or user is simply not found.
package chat

import (
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/sourceauth"
)

// AskResult is what Ask and Retry return at once, before the answer exists:
// the user message, the PENDING attempt (or, when deduplicated, whatever
// state the original attempt is in), and whether the request repeated an
// earlier idempotency key.
type AskResult struct {
	UserMessage  *ent.Message
	Attempt      *ent.Attempt
	Deduplicated bool
}

// CreateConversationInput creates a conversation. KnowledgeBaseID nil picks
// the tenant's first knowledge base. Title "" means "from the first
// question". HistoryStrategy nil (or "") inherits the tenant's strategy;
// otherwise it must name one of domain.HistoryStrategies.
type CreateConversationInput struct {
	KnowledgeBaseID *uuid.UUID
	Title           string
	HistoryStrategy *string
	// Metadata and FolderID are the conversation's first organisation,
	// checked by internal/organise (Service.PrepareNew) beforehand.
	Metadata map[string]string
	FolderID *uuid.UUID
	// Temporary asks for a temporary chat (temporary.go).
	Temporary bool
	// ModelProfileID and ModelParameters are the conversation's model
	// choice (modelchoice.go), checked like an ask's.
	ModelProfileID  *uuid.UUID
	ModelParameters domain.ModelParameters
}

// AttemptEventKind is the type of an attempt stream event.
type AttemptEventKind string

// The attempt stream events, in the order a client sees them.
const (
	EventStarted   AttemptEventKind = "STARTED"
	EventSources   AttemptEventKind = "SOURCES"
	EventDelta     AttemptEventKind = "DELTA"
	EventCompleted AttemptEventKind = "COMPLETED"
	EventFailed    AttemptEventKind = "FAILED"
)

// AttemptEvent is one event of an attempt's live stream.
//
// Seq orders the answer text: a DELTA carries the answer's length in code
// points after the delta, so a client that reconnects with afterSeq = the
// last Seq it applied receives exactly the text it missed. Other events
// carry the Seq of the text streamed so far.
type AttemptEvent struct {
	Kind      AttemptEventKind
	AttemptID uuid.UUID
	Seq       int
	// Text is the delta text (DELTA only).
	Text string
	// StandaloneQuestion and RequiresHistory (STARTED) show the rewrite.
	StandaloneQuestion string
	RequiresHistory    bool
	// Sources (SOURCES) are the evidence given to the model, in label
	// order, re-authorised for the subscriber when the event is delivered,
	// as Attempt.sources would be now.
	Sources []sourceauth.View
	// SourcesStamp is the access stamp (authwatch.Access.ViewerStamp) read before
	// Sources were re-authorised: they may be reused while it holds.
	SourcesStamp uint64
	// Attempt (COMPLETED, FAILED) is the final attempt row.
	Attempt *ent.Attempt
	// FailureCode and FailureMessage (FAILED).
	FailureCode    domain.FailureCode
	FailureMessage string
}
