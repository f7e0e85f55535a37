package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/prompt"
	"github.com/ragchat/ragchat/internal/tokens"
)

// PreviewContext builds the prompt context the next answer to question
// would get in a conversation the viewer owns — history window, rewrite,
// authorised retrieval and token-budgeted assembly — without saving
// anything or calling the answer model, and returns its manifest. It is
// the debugging view of docs/ENGINE.md D15 and what the context-assembly
// benchmark measures.
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
	j := job{conv: conv, settings: st}
	j.msg = newPreviewMessage(conv, question)
	win, err := e.loadWindow(ctx, j)
	if err != nil {
		return nil, storageError(err, "conversation")
	}
	standalone, _ := e.rewrite(ctx, j, win)
	evidence, err := e.retrieve(ctx, j, standalone)
	if err != nil {
		return nil, storageError(err, "knowledge base")
	}
	res := prompt.Assemble(prompt.Input{
		Question: question, Evidence: evidence, Rounds: win.rounds,
		Summary: win.summary, SummaryVersion: win.summaryVersion, RevokedRounds: win.revoked,
		Budget:  prompt.Budget{Total: st.PromptTokenBudget, History: st.HistoryTokenBudget, MaxRounds: win.maxRounds},
		Counter: tokens.ForModel(e.chatModel(st)),
	})
	return &res.Manifest, nil
}

// newPreviewMessage stands in for the user message a real ask would save
// next.
func newPreviewMessage(conv *ent.Conversation, question string) *ent.Message {
	return &ent.Message{ConversationID: conv.ID, SequenceNo: conv.LastSequenceNo + 1, Content: question}
}
