package server

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/resolvers"
)

// KnowledgeService exposes a knowledge.Service to the resolvers.
func KnowledgeService(svc *knowledge.Service) resolvers.Knowledge { return knowledgeAdapter{svc} }

// knowledgeAdapter converts between the resolvers' and the knowledge
// package's input types.
type knowledgeAdapter struct{ svc *knowledge.Service }

func (k knowledgeAdapter) CreateKnowledgeBase(ctx context.Context, name, description string) (*ent.KnowledgeBase, error) {
	return k.svc.CreateKnowledgeBase(ctx, name, description)
}

func (k knowledgeAdapter) Ingest(ctx context.Context, kbID uuid.UUID, in resolvers.DocumentInput) (*ent.Document, error) {
	return k.svc.Ingest(ctx, kbID, knowledge.DocumentInput{
		Title: in.Title, SourceURI: in.SourceURI, Content: in.Content, ACL: knowledgeACL(in.ACL),
	})
}

func (k knowledgeAdapter) SetACL(ctx context.Context, documentID uuid.UUID, acl resolvers.ACL) (*ent.Document, error) {
	return k.svc.SetACL(ctx, documentID, knowledgeACL(acl))
}

func (k knowledgeAdapter) DeleteDocument(ctx context.Context, documentID uuid.UUID, reason string) error {
	return k.svc.DeleteDocument(ctx, documentID, reason)
}

func knowledgeACL(a resolvers.ACL) knowledge.ACL {
	return knowledge.ACL{Visibility: a.Visibility, Groups: a.Groups, Users: a.Users}
}
