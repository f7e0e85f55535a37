package sourceauth

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/internal/store"
)

// AttachmentsOf returns the attachments of ids the viewer in ctx may read
// now through client (Ent privacy: the conversation's owner, an admin, an agent under a
// grant; never a deleted conversation's), in the order of ids, with one
// read; the others are left out. Without ids it reads nothing.
func AttachmentsOf(ctx context.Context, client *ent.Client, ids []uuid.UUID) ([]*ent.Attachment, error) {
	out := []*ent.Attachment{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := client.Attachment.Query().Where(attachment.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "attachment")
	}
	for _, id := range ids {
		if i := slices.IndexFunc(rows, func(a *ent.Attachment) bool { return a.ID == id }); i >= 0 {
			out = append(out, rows[i])
		}
	}
	return out, nil
}
