package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/attachment"
)

// Attachments is conversation attachments (*attachment.Service;
// docs/API.md, "Attachments").
type Attachments interface {
	Upload(ctx context.Context, convID uuid.UUID, name string, data []byte) (*ent.Attachment, error)
	List(ctx context.Context, convID uuid.UUID) ([]*ent.Attachment, error)
}

var _ Attachments = (*attachment.Service)(nil)
