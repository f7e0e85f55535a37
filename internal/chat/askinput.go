package chat

import (
	"slices"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/modelprofile"
)

// AskInput is one question for Ask: everything the engine needs of it
// travels here, none of it in the context.
type AskInput struct {
	// ConversationID is the conversation asked in (ignored with EditOf:
	// the edited message's).
	ConversationID uuid.UUID
	// ParentID, when set, is the message the question follows instead of
	// the conversation's current leaf (docs/ENGINE.md, "Message trees"):
	// an answer or a question of the conversation, which becomes the
	// current leaf; when it was not the current leaf, BRANCH_SELECTED
	// tells the owner's devices. A parent that is not a USER or ASSISTANT
	// message of a conversation the viewer owns is NOT_FOUND "message",
	// the same for every reason. The write is Ask's.
	ParentID *uuid.UUID
	// EditOf, when set, is the viewer's USER message the question edits:
	// the question becomes its sibling.
	EditOf *uuid.UUID
	// ClientMessageID is the question's idempotency key, shared by the
	// conversation's asks and edits.
	ClientMessageID string
	// Question is the question as the user wrote it.
	Question string
	// AttachmentIDs are attachments of the conversation the question
	// names (docs/ENGINE.md, "Attachments on an ask").
	AttachmentIDs []uuid.UUID
	// Model is the ask's model choice (modelProfileId, modelParameters),
	// over the conversation's and the tenant's; zero: none.
	Model modelprofile.Level
}

// RetryInput is a new attempt at an existing one, for Retry and Reask.
type RetryInput struct {
	// AttemptID is the attempt retried (Retry) or asked again (Reask).
	AttemptID uuid.UUID
	// ClientRequestID is the request's idempotency key.
	ClientRequestID string
	// Model is the request's model choice; zero: none.
	Model modelprofile.Level
}

// attemptPlan is what an ask decided about its attempt before writing
// it: the model resolved for it (nil without profiles) and, under a token
// quota, the id its reservation names (uuid.Nil: a new one).
type attemptPlan struct {
	model *modelprofile.Resolved
	id    uuid.UUID
}

// uniqueIDs returns ids without repeats, in the order first given.
func uniqueIDs(ids []uuid.UUID) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
