package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/sourceauth"
)

// messageAttachments is the attachments msg's question was asked with that
// the viewer may still read (docs/API.md, "Attachments"); a message
// without any costs no query.
func (r *Resolver) messageAttachments(ctx context.Context, msg *ent.Message) ([]*ent.Attachment, error) {
	return sourceauth.AttachmentsOf(ctx, r.client, msg.AttachmentIds)
}

// sourceAttachment is the attachment an ATTACHMENT source cites while the
// viewer may read it, else nil; a document's source is always nil.
func (r *Resolver) sourceAttachment(ctx context.Context, s *ent.Source) (*ent.Attachment, error) {
	if s.Kind != source.KindATTACHMENT || s.AttachmentID == nil {
		return nil, nil
	}
	v, err := r.sourceView(ctx, s)
	if err != nil || !v.Available {
		return nil, err
	}
	rows, err := sourceauth.AttachmentsOf(ctx, r.client, []uuid.UUID{*s.AttachmentID})
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return rows[0], nil
}
