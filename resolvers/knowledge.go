package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/domain"
)

// Knowledge is the knowledge administration the API exposes to curators
// (admins and agents). cmd/ragchat adapts internal/knowledge's Service to
// it. Implementations take the viewer from ctx and return *domain.Error
// values (NOT_FOUND for an id the viewer cannot see, FORBIDDEN without the
// curator role, BAD_USER_INPUT for invalid input).
type Knowledge interface {
	CreateKnowledgeBase(ctx context.Context, name, description string) (*ent.KnowledgeBase, error)
	Ingest(ctx context.Context, knowledgeBaseID uuid.UUID, in DocumentInput) (*ent.Document, error)
	SetACL(ctx context.Context, documentID uuid.UUID, acl ACL) (*ent.Document, error)
	DeleteDocument(ctx context.Context, documentID uuid.UUID, reason string) error
}

// DocumentInput is one document to ingest.
type DocumentInput struct {
	Title     string
	SourceURI string
	Content   string
	ACL       ACL
}

// ACL says who may read a document: Visibility "TENANT" (everyone in the
// tenant) or "RESTRICTED" (only the listed groups and users).
type ACL struct {
	Visibility string
	Groups     []string
	Users      []string
}

// aclFromInput converts the GraphQL ACL input; nil means the whole tenant.
func aclFromInput(in *model.DocumentACLInput) ACL {
	if in == nil {
		return ACL{Visibility: "TENANT"}
	}
	return ACL{Visibility: string(in.Visibility), Groups: in.Groups, Users: in.Users}
}

// knowledgeService returns the knowledge service, or UNAVAILABLE; the
// service decides who may curate.
func (r *Resolver) knowledgeService(ctx context.Context) (Knowledge, error) {
	if r.knowledge == nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "knowledge administration is not available")
	}
	return r.knowledge, nil
}
