package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
)

// errNotYet is returned by the message-tree operations whose bodies are
// being written (issue 18); it is replaced before the issue is done.
var errNotYet = domain.Errorf(domain.CodeInternal, "not implemented yet")

// AskParent is Ask with an explicit parent: the question follows parentID
// (an answer, or a question, of the conversation) instead of the
// conversation's current leaf, and becomes the current leaf; when parentID
// was not the current leaf, BRANCH_SELECTED tells the owner's devices. A
// parent that is not a USER or ASSISTANT message of the conversation the
// viewer owns is NOT_FOUND "message", the same for every reason. A nil
// parentID is Ask. The write is Ask's: one statement on PostgreSQL.
func (e *Engine) AskParent(ctx context.Context, conversationID uuid.UUID, parentID *uuid.UUID, clientMessageID, question string) (*AskResult, error) {
	return e.ask(ctx, conversationID, askSpot{parent: parentID}, clientMessageID, question)
}

// EditMessage edits one of the viewer's own USER messages: a sibling USER
// message with the new question under the same parent, and the PENDING
// attempt answering it; the new message becomes the current leaf.
func (e *Engine) EditMessage(ctx context.Context, messageID uuid.UUID, question, clientMessageID string) (*AskResult, error) {
	return nil, errNotYet
}

// SelectBranch makes the path through messageID the conversation's
// current branch, continuing to its most recently active leaf, and
// publishes BRANCH_SELECTED.
func (e *Engine) SelectBranch(ctx context.Context, conversationID, messageID uuid.UUID) (*ent.Conversation, error) {
	return nil, errNotYet
}
