package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/portability"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Portability exports and imports conversations (*portability.Service).
type Portability interface {
	ExportConversation(ctx context.Context, id uuid.UUID, f portability.Format) (*portability.Export, error)
	Import(ctx context.Context, in portability.ImportInput) ([]*ent.Conversation, error)
}

var _ Portability = (*portability.Service)(nil)

// portabilityService is the export and import service, or UNAVAILABLE
// when the server has none.
func (r *Resolver) portabilityService() (Portability, error) {
	if r.portability == nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "export and import are not available")
	}
	return r.portability, nil
}

// exportConversation exports one of the viewer's own conversations.
func (r *Resolver) exportConversation(ctx context.Context, id uuid.UUID, f portability.Format) (*portability.Export, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	p, err := r.portabilityService()
	if err != nil {
		return nil, err
	}
	out, err := p.ExportConversation(ctx, id, f)
	return out, notFound(err, "conversation")
}

// importConversations imports conversations for the viewer.
func (r *Resolver) importConversations(ctx context.Context, in model.ImportConversationsInput) (*model.ImportConversationsPayload, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	p, err := r.portabilityService()
	if err != nil {
		return nil, err
	}
	key := orEmpty(in.ClientRequestID)
	convs, err := p.Import(ctx, portability.ImportInput{
		Format: in.Format, Content: in.Content, KnowledgeBaseID: in.KnowledgeBaseID, ClientRequestID: key,
	})
	if err != nil {
		return nil, err
	}
	return &model.ImportConversationsPayload{Conversations: convs}, nil
}
