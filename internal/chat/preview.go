package chat

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
)

// PreviewContext builds the prompt context the next answer to question
// would get in a conversation the viewer owns — with the very pipeline an
// answer uses (buildContext: history window, rewrite, authorised retrieval
// and token-budgeted assembly) — without saving anything or calling the
// answer model, and returns its manifest. It is the debugging view of the
// context manifest (docs/ENGINE.md D15) and what the context-assembly benchmark
// measures.
func (e *Engine) PreviewContext(ctx context.Context, conversationID uuid.UUID, question string) (*domain.ContextManifest, error) {
	question, err := e.checkQuestion(question)
	if err != nil {
		return nil, err
	}
	conv, err := e.loadOwnConversation(ctx, conversationID)
	if err != nil {
		return nil, err
	}
	st, err := e.settings(ctx)
	if err != nil {
		return nil, err
	}
	j := job{conv: conv, settings: st, msg: newPreviewMessage(conv, question)}
	bc, err := e.buildContext(ctx, j, nil)
	if err != nil {
		kind := "conversation"
		var ce *contextError
		if errors.As(err, &ce) {
			kind = ce.kind
		}
		return nil, store.DomainError(err, kind)
	}
	return &bc.assembled.Manifest, nil
}

// newPreviewMessage stands in for the user message a real ask would save
// next.
func newPreviewMessage(conv *ent.Conversation, question string) *ent.Message {
	return &ent.Message{ConversationID: conv.ID, SequenceNo: conv.LastSequenceNo + 1, Content: question}
}
