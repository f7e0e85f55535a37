package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/support"
)

// Support is delegated support access (*support.Service; docs/API.md,
// "Delegated support access"), which decides who may request, decide and
// see grants.
type Support interface {
	Request(ctx context.Context, in support.RequestInput) (*ent.SupportGrant, error)
	Approve(ctx context.Context, id uuid.UUID) (*ent.SupportGrant, error)
	Deny(ctx context.Context, id uuid.UUID, reason string) (*ent.SupportGrant, error)
	Revoke(ctx context.Context, id uuid.UUID) (*ent.SupportGrant, error)
	ConversationGrants(ctx context.Context, conversationID uuid.UUID) ([]*ent.SupportGrant, error)
	State(g *ent.SupportGrant) string
}

var _ Support = (*support.Service)(nil)
