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
// (an answer, or an unanswered question, of the conversation) instead of
// the conversation's current leaf. A nil parentID is Ask.
func (e *Engine) AskParent(ctx context.Context, conversationID uuid.UUID, parentID *uuid.UUID, clientMessageID, question string) (*AskResult, error) {
	if parentID == nil {
		return e.Ask(ctx, conversationID, clientMessageID, question)
	}
	return nil, errNotYet
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
