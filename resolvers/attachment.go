package resolvers

import (
	"context"
	"io"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/domain"
)

// Attachments is conversation attachments (*attachment.Service;
// docs/API.md, "Attachments").
type Attachments interface {
	Upload(ctx context.Context, convID uuid.UUID, name string, data []byte) (*ent.Attachment, error)
	List(ctx context.Context, convID uuid.UUID) ([]*ent.Attachment, error)
}

var _ Attachments = (*attachment.Service)(nil)

// uploadAttachment reads the uploaded file (the transport has already
// capped its size) and stores it as an attachment of conversationID.
func (r *Resolver) uploadAttachment(ctx context.Context, conversationID uuid.UUID, file graphql.Upload) (*model.UploadAttachmentPayload, error) {
	if r.attachments == nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "attachments are not available")
	}
	if file.File == nil {
		return nil, domain.Errorf(domain.CodeBadUserInput, "no file was sent").With("field", "file")
	}
	data, err := io.ReadAll(file.File)
	if err != nil {
		return nil, domain.Errorf(domain.CodeBadUserInput, "the file could not be read").With("field", "file")
	}
	a, err := r.attachments.Upload(ctx, conversationID, file.Filename, data)
	if err != nil {
		return nil, err
	}
	return &model.UploadAttachmentPayload{Attachment: a}, nil
}

// conversationAttachments lists conv's attachments the viewer may read.
func (r *Resolver) conversationAttachments(ctx context.Context, conv *ent.Conversation) ([]*ent.Attachment, error) {
	if r.attachments == nil {
		return []*ent.Attachment{}, nil
	}
	return r.attachments.List(ctx, conv.ID)
}
