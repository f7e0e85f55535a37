// Package history chooses what of a conversation's history reaches an
// answer, and assembles the answer's prompt context: steps 1–4 of the
// background run in docs/ENGINE.md ("Ask, step by step"), which an answer
// and the engine's PreviewContext both run.
//
//   - The window (window.go): the newest whole rounds of the path the
//     question follows (its ancestors, never the rest of the tree) that
//     are still authorised, and the summary of the nearest summarised
//     ancestor, in one statement that joins each answer's attempt
//     (windowattempts.go) and its sources' readability (windowsources.go).
//   - The history strategies (strategy.go): what each one reads and
//     carries, and the parsing of a conversation's requested strategy.
//   - PRIORITIZED scoring (prioritized.go): the candidate rounds scored
//     against a question, for the rewrite's ranking and the prompt's
//     choice.
//   - What the rewrite of a follow-up sees, and the rewrite (rewrite.go).
//   - The retrieval started before the window when the question cannot
//     need history (retrieveearly.go).
//   - The budget split per model (modelbudget.go): the usable window, the
//     answer reserve and the answer's limit.
//   - The assembly itself (buildcontext.go), timed for a ContextObserver
//     (contexttime.go) and traced step by step (tracing.go).
//
// It knows nothing of attempts, runs, events or GraphQL: the engine
// (internal/chat) passes what it needs in an Assembler, made once, and a
// Request per context. Rows are read through Ent as the viewer in ctx, so
// the privacy policies filter them; the summaries it reads are written by
// internal/chat/summary.
package history

import (
	"context"
	"log/slog"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/prompt"
)

// Assembler builds prompt contexts (Build). Its fields are what it needs
// of the engine; they are set once, where the engine is made, and not
// changed after.
type Assembler struct {
	// Client reads the window, as the viewer in each call's ctx.
	Client *ent.Client
	// Model embeds PRIORITIZED candidates and rewrites follow-ups.
	Model llm.Model
	Log   *slog.Logger
	// ModelWindows overrides the model registry's context windows (model
	// name or name prefix → tokens; RAGCHAT_MODEL_WINDOWS). A tenant's
	// modelContextWindows override these in turn.
	ModelWindows map[string]int
	// Observer, when not nil, receives how long each assembly took.
	Observer ContextObserver
	// Tracer, when not nil, traces Build's steps (window, rewrite,
	// assemble) as children of the span in its ctx.
	Tracer trace.Tracer
}

// Request is one context to build: for the question of a user message
// (saved, or a preview's stand-in for the next one) in a conversation.
type Request struct {
	// Conversation is the conversation as the caller just read it.
	Conversation *ent.Conversation
	// Reread reads the conversation again for its window: an answer run
	// may have waited in the queue while the summariser moved the summary
	// on (windowConversation).
	Reread bool
	// Settings are the tenant's, with defaults filled in.
	Settings domain.TenantSettings
	// Question and SequenceNo are the user message's: the window holds the
	// rounds before it.
	Question   string
	SequenceNo int64
	// ParentID is the message the question follows on its path (the
	// user message's parent; for a preview, the conversation's current
	// leaf): the window walks up from it (docs/ENGINE.md, "History on a
	// tree"). nil is a root question, with no history, in a conversation
	// with a current leaf; in one without, a line written before messages
	// had parents, whose window is the messages before SequenceNo.
	ParentID *uuid.UUID
	// AttemptID names the answer in logs (zero for a preview).
	AttemptID uuid.UUID
	// ChatModel is the model that answers, whose window is budgeted and
	// which the rewrite is asked of.
	ChatModel string
	// Rewriter, when not nil, rewrites follow-ups instead of the
	// assembler's Model: the endpoint of the answer's model profile.
	Rewriter llm.Rewriter
	// Retrieve returns the evidence the viewer may read for a question,
	// above the evidence threshold.
	Retrieve func(ctx context.Context, question string) ([]prompt.Evidence, error)
	// AfterRewrite, when not nil, runs between the rewrite and the
	// retrieval (an answer saves both questions and publishes STARTED
	// there); its error stops the build.
	AfterRewrite func(standalone string, requires bool) error
}
