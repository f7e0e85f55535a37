package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Attachments on an ask (docs/ENGINE.md, "Attachments on an ask"): an ask
// or an edit may name attachments of its conversation (AskInput.AttachmentIDs).
// They are checked in the ask's transaction, with one privacy-filtered
// read, before anything is written; the question message stores their ids
// (messages.attachment_ids, in the message's own INSERT, so the write
// statements do not change), and the answer's retrieval, and every retry's,
// always offers the best chunk of each as evidence (pinnedEvidence).

// MaxAskAttachments bounds how many attachments one question may name.
const MaxAskAttachments = 20

// FieldAttachmentIDs is the input field refusals of an ask's attachments name.
const FieldAttachmentIDs = "attachmentIds"

// ReasonAttachmentNotReady is the BAD_USER_INPUT reason of an attachment
// that is not READY (still being scanned or chunked, or FAILED).
const ReasonAttachmentNotReady = "ATTACHMENT_NOT_READY"

// checkAskAttachments checks, with one read through tx (so through the
// attachments' privacy policy), that every id is an attachment of conv
// owned by the viewer and READY. An id that is unknown, deleted, of another
// conversation, user or tenant is the same NOT_FOUND "attachment"; one
// that is not READY is BAD_USER_INPUT (field attachmentIds, reason
// ATTACHMENT_NOT_READY, attachmentId). Without ids it reads nothing.
func checkAskAttachments(ctx context.Context, tx *ent.Tx, conv *ent.Conversation, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	if len(ids) > MaxAskAttachments {
		return domain.Errorf(domain.CodeBadUserInput, "a question may name at most %d attachments", MaxAskAttachments).
			With("field", FieldAttachmentIDs).With("limit", MaxAskAttachments)
	}
	v, err := viewer.Require(ctx)
	if err != nil {
		return err
	}
	rows, err := tx.Attachment.Query().
		Where(attachment.IDIn(ids...), attachment.ConversationID(conv.ID), attachment.OwnerID(v.UserID)).
		Select(attachment.FieldID, attachment.FieldStatus).
		All(ctx)
	if err != nil {
		return store.DomainError(err, "attachment")
	}
	status := make(map[uuid.UUID]attachment.Status, len(rows))
	for _, a := range rows {
		status[a.ID] = a.Status
	}
	for _, id := range ids {
		if _, ok := status[id]; !ok {
			return domain.NotFound("attachment")
		}
	}
	for _, id := range ids {
		if st := status[id]; st != attachment.StatusREADY {
			return domain.Errorf(domain.CodeBadUserInput, "attachment %s is %s, not READY", id, st).
				With("field", FieldAttachmentIDs).With("reason", ReasonAttachmentNotReady).With("attachmentId", id.String())
		}
	}
	return nil
}

// sameAttachmentSet reports whether stored (a question's attachment ids)
// and asked (a repeated ask's, deduplicated) name the same attachments, in
// any order: a replayed ask must carry the attachments of the original.
func sameAttachmentSet(stored, asked []uuid.UUID) bool {
	seen := make(map[uuid.UUID]bool, len(stored))
	for _, id := range stored {
		seen[id] = true
	}
	if len(seen) != len(asked) {
		return false
	}
	for _, id := range asked {
		if !seen[id] {
			return false
		}
	}
	return true
}
