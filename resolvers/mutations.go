package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feedback"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The mutations below pass client input to the engine unchecked: the
// engine owns every input limit (internal/chat/limits.go), so there is one
// number per limit and one error shape.

// createConversation starts a conversation owned by the viewer.
func (r *Resolver) createConversation(ctx context.Context, in *model.CreateConversationInput) (*ent.Conversation, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	var cin chat.CreateConversationInput
	if in != nil {
		cin.KnowledgeBaseID = in.KnowledgeBaseID
		if in.Title != nil {
			cin.Title = *in.Title
		}
		cin.HistoryStrategy = in.HistoryStrategy
		org, err := r.newConversationOrganisation(ctx, *in)
		if err != nil {
			return nil, err
		}
		cin.Metadata, cin.FolderID = org.Metadata, org.FolderID
		cin.Temporary = in.Temporary != nil && *in.Temporary
		cin.ModelProfileID = in.ModelProfileID
		if in.ModelParameters != nil {
			cin.ModelParameters = *in.ModelParameters
		}
	}
	c, err := r.engine.CreateConversation(ctx, cin)
	return c, notFound(err, "knowledge base")
}

// conversationOp runs one engine operation on a conversation id, expecting
// its version when expectedVersion is set.
func (r *Resolver) conversationOp(ctx context.Context, id uuid.UUID, expectedVersion *int, op func(context.Context, uuid.UUID, ...chat.UpdateOption) (*ent.Conversation, error)) (*ent.Conversation, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	c, err := op(ctx, id, chat.ExpectVersionIf(expectedVersion))
	return c, notFound(err, "conversation")
}

// renameConversation sets a user-chosen title.
func (r *Resolver) renameConversation(ctx context.Context, id uuid.UUID, title string, expectedVersion *int) (*ent.Conversation, error) {
	return r.conversationOp(ctx, id, expectedVersion, func(ctx context.Context, id uuid.UUID, opts ...chat.UpdateOption) (*ent.Conversation, error) {
		return r.engine.RenameConversation(ctx, id, title, opts...)
	})
}

// setConversationHistoryStrategy sets or clears a conversation's own
// history strategy.
func (r *Resolver) setConversationHistoryStrategy(ctx context.Context, id uuid.UUID, strategy *string, expectedVersion *int) (*ent.Conversation, error) {
	return r.conversationOp(ctx, id, expectedVersion, func(ctx context.Context, id uuid.UUID, opts ...chat.UpdateOption) (*ent.Conversation, error) {
		return r.engine.SetConversationHistoryStrategy(ctx, id, strategy, opts...)
	})
}

// deleteConversation soft-deletes a conversation.
func (r *Resolver) deleteConversation(ctx context.Context, id uuid.UUID, reason *string, expectedVersion *int) (*ent.Conversation, error) {
	why := orEmpty(reason)
	return r.conversationOp(ctx, id, expectedVersion, func(ctx context.Context, id uuid.UUID, opts ...chat.UpdateOption) (*ent.Conversation, error) {
		return r.engine.DeleteConversation(ctx, id, why, opts...)
	})
}

// ask stores a question and starts answering it: after the current leaf,
// or after in.ParentMessageID when given.
func (r *Resolver) ask(ctx context.Context, in model.AskInput) (*model.AskPayload, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	res, err := r.engine.Ask(ctx, chat.AskInput{
		ConversationID: in.ConversationID, ParentID: in.ParentMessageID,
		ClientMessageID: in.ClientMessageID, Question: in.Question,
		AttachmentIDs: in.AttachmentIds, Model: modelChoice(in.ModelProfileID, in.ModelParameters),
	})
	if err != nil {
		return nil, notFound(err, "conversation")
	}
	return askPayload(res), nil
}

// retry starts a new attempt at the same user message.
func (r *Resolver) retry(ctx context.Context, in model.RetryAttemptInput) (*model.AskPayload, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	res, err := r.engine.Retry(ctx, chat.RetryInput{AttemptID: in.AttemptID, ClientRequestID: in.ClientRequestID,
		Model: modelChoice(in.ModelProfileID, in.ModelParameters)})
	if err != nil {
		return nil, notFound(err, "attempt")
	}
	return askPayload(res), nil
}

func askPayload(res *chat.AskResult) *model.AskPayload {
	return &model.AskPayload{UserMessage: res.UserMessage, Attempt: res.Attempt, Deduplicated: res.Deduplicated}
}

// cancel stops a PENDING attempt.
func (r *Resolver) cancel(ctx context.Context, id uuid.UUID) (*ent.Attempt, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	a, err := r.engine.Cancel(ctx, id)
	return a, notFound(err, "attempt")
}

// submitFeedback records the viewer's feedback on a COMPLETED attempt.
func (r *Resolver) submitFeedback(ctx context.Context, in model.SubmitFeedbackInput) (*ent.Feedback, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	if r.feedback == nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "feedback is not available")
	}
	f, err := r.feedback.Submit(ctx, feedback.Input{
		AttemptID: in.AttemptID,
		Rating:    in.Rating.String(),
		Reasons:   in.Reasons,
		Comment:   in.Comment,
	})
	return f, notFound(err, "attempt")
}

// knowledgeService returns the knowledge service, or UNAVAILABLE; the
// service decides who may curate.
func (r *Resolver) knowledgeService(ctx context.Context) (Knowledge, error) {
	if r.knowledge == nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "knowledge administration is not available")
	}
	return r.knowledge, nil
}

// createKnowledgeBase creates a knowledge base in the viewer's tenant.
func (r *Resolver) createKnowledgeBase(ctx context.Context, in model.CreateKnowledgeBaseInput) (*ent.KnowledgeBase, error) {
	k, err := r.knowledgeService(ctx)
	if err != nil {
		return nil, err
	}
	desc := orEmpty(in.Description)
	return k.CreateKnowledgeBase(ctx, in.Name, desc)
}

// ingestDocument chunks, embeds and stores a document.
func (r *Resolver) ingestDocument(ctx context.Context, in model.IngestDocumentInput) (*ent.Document, error) {
	k, err := r.knowledgeService(ctx)
	if err != nil {
		return nil, err
	}
	uri := orEmpty(in.SourceURI)
	d, err := k.Ingest(ctx, in.KnowledgeBaseID, DocumentInput{Title: in.Title, SourceURI: uri, Content: in.Content, ACL: aclFromInput(in.ACL)})
	return d, notFound(err, "knowledge base")
}

// setDocumentACL changes who may read a document.
func (r *Resolver) setDocumentACL(ctx context.Context, id uuid.UUID, acl model.DocumentACLInput) (*ent.Document, error) {
	k, err := r.knowledgeService(ctx)
	if err != nil {
		return nil, err
	}
	d, err := k.SetACL(ctx, id, aclFromInput(&acl))
	return d, notFound(err, "document")
}

// deleteDocument deletes a document and its chunks.
func (r *Resolver) deleteDocument(ctx context.Context, id uuid.UUID, reason *string) (*model.DeleteDocumentPayload, error) {
	k, err := r.knowledgeService(ctx)
	if err != nil {
		return nil, err
	}
	why := orEmpty(reason)
	if err := k.DeleteDocument(ctx, id, why); err != nil {
		return nil, notFound(err, "document")
	}
	return &model.DeleteDocumentPayload{DeletedDocumentID: id}, nil
}

// conversationTemporary is Conversation.temporary: whether c is a
// temporary chat.
func conversationTemporary(c *ent.Conversation) bool { return authz.IsTemporary(c) }
