package chat

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/chat/history"
	"github.com/ragchat/ragchat/internal/conversations"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/prompt"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tenantsettings"
)

// newAssembler returns the engine's context assembler (internal/chat/history),
// reading through the engine's client with its model and logger.
func (e *Engine) newAssembler() *history.Assembler {
	obs, _ := e.obs.(history.ContextObserver)
	return &history.Assembler{Client: e.client, Model: e.model, Log: e.log, ModelWindows: e.cfg.ModelWindows, Observer: obs, Tracer: e.tracer}
}

// buildContext builds j's prompt context with the one context pipeline
// (history.Assembler.Build: history window, rewrite, authorised retrieval
// and token-budgeted assembly). The history is the path the user message
// follows (its parent and that one's ancestors), never the tree. afterRewrite, when not nil, runs between
// the rewrite and the retrieval; its error stops the build.
func (e *Engine) buildContext(ctx context.Context, j job, afterRewrite func(standalone string, requires bool) error) (history.BuiltContext, error) {
	req := history.Request{
		Conversation: j.conv, Reread: j.att != nil, Settings: j.settings,
		Question: j.msg.Content, SequenceNo: j.msg.SequenceNo, ParentID: j.msg.ParentID,
		ChatModel: e.chatModel(j.settings),
		// The attempt's model profile (modelchoice.go): its model, window,
		// answer cap and endpoint, which the rewrite is asked of too;
		// the rewrite is metered (sideModel).
		Rewriter: e.sideModel(j),
		Retrieve: func(ctx context.Context, question string) ([]prompt.Evidence, error) {
			return e.retrieve(ctx, j, question)
		},
		AfterRewrite: afterRewrite,
	}
	if j.att != nil {
		req.AttemptID = j.att.ID
	}
	if j.model.llm != nil {
		req.ChatModel, req.Settings = j.model.model, j.model.settings
	}
	return e.history.Build(ctx, req)
}

// PreviewContext builds the prompt context the next answer to question
// would get in a conversation the viewer owns — with the very pipeline an
// answer uses (buildContext) — without saving anything or calling the
// answer model, and returns its manifest. It is the debugging view of the
// context manifest (docs/ENGINE.md D15) and what the context-assembly
// benchmark measures.
func (e *Engine) PreviewContext(ctx context.Context, conversationID uuid.UUID, question string) (*domain.ContextManifest, error) {
	question, err := e.checkQuestion(question)
	if err != nil {
		return nil, err
	}
	conv, err := conversations.LoadOwn(ctx, e.client, conversationID, e.now())
	if err != nil {
		return nil, err
	}
	st, err := tenantsettings.Effective(ctx, e.client)
	if err != nil {
		return nil, err
	}
	bc, err := e.buildContext(ctx, previewJob(conv, st, question), nil)
	if err != nil {
		kind := "conversation"
		var ce *history.ContextError
		if errors.As(err, &ce) {
			kind = ce.Kind
		}
		return nil, store.DomainError(err, kind)
	}
	return &bc.Assembled.Manifest, nil
}

// previewJob is the job of a preview of question in conv: its message
// stands in for the user message a real ask would save next. It follows
// the conversation's current leaf, so its history is the current branch's
// path.
func previewJob(conv *ent.Conversation, st domain.TenantSettings, question string) job {
	return job{conv: conv, settings: st, msg: &ent.Message{
		ConversationID: conv.ID, SequenceNo: conv.LastSequenceNo + 1, Content: question, ParentID: conv.CurrentLeafID,
	}}
}
