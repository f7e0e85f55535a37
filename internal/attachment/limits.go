package attachment

import (
	"context"
	"database/sql"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The names of the limits in extensions.limit.
const (
	LimitFileBytes            = "maxFileBytes"
	LimitFilesPerConversation = "maxFilesPerConversation"
	LimitBytesPerUser         = "maxBytesPerUser"
)

// counted is the predicate of the attachments the limits count: all but
// FAILED ones, whose bytes are deleted (an attachment whose processing
// was lost or timed out stops counting once it is FAILED: recover.go).
func counted() predicate.Attachment {
	return attachment.StatusNEQ(attachment.StatusFAILED)
}

// checkLimits refuses an upload of size bytes into convID that would pass
// one of the tenant's attachment limits, reading the counts through c.
// Upload runs it twice: once on the client before anything is stored, a
// cheap early refusal whose counts are not locked, and once in the
// transaction that inserts the attachment, after lockOwner, where it is
// exact (insert.go).
func (s *Service) checkLimits(ctx context.Context, c *ent.Client, v *viewer.Viewer, convID uuid.UUID, size int64) error {
	t, err := c.Tenant.Get(ctx, v.TenantID)
	if err != nil {
		return store.DomainError(err, "tenant")
	}
	l := t.Settings.Attachments().Effective()
	over := func(limit string, max int64, format string, args ...any) error {
		return domain.Errorf(domain.CodeBadUserInput, format, args...).
			With("field", "file").With("limit", limit).With("max", max)
	}
	if size > l.MaxFileBytes {
		return over(LimitFileBytes, l.MaxFileBytes, "the file has %d bytes, more than the limit of %d", size, l.MaxFileBytes)
	}
	if size == 0 {
		return domain.Errorf(domain.CodeBadUserInput, "the file is empty").With("field", "file")
	}
	n, err := c.Attachment.Query().Where(attachment.ConversationID(convID), counted()).Count(ctx)
	if err != nil {
		return store.DomainError(err, "attachment")
	}
	if n >= l.MaxFilesPerConversation {
		return over(LimitFilesPerConversation, int64(l.MaxFilesPerConversation),
			"the conversation already has %d files, the limit", n)
	}
	var sums []struct {
		Sum sql.NullInt64 `json:"sum"`
	}
	err = c.Attachment.Query().Where(attachment.OwnerID(v.UserID), counted()).
		Aggregate(ent.Sum(attachment.FieldSize)).Scan(ctx, &sums)
	if err != nil {
		return store.DomainError(err, "attachment")
	}
	var used int64
	if len(sums) > 0 {
		used = sums[0].Sum.Int64
	}
	if used+size > l.MaxBytesPerUser {
		return over(LimitBytesPerUser, l.MaxBytesPerUser,
			"your files would total %d bytes, more than the limit of %d", used+size, l.MaxBytesPerUser)
	}
	return nil
}
