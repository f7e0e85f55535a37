package domain

import "github.com/ragchat/ragchat/internal/defaults"

// AttachmentLimits bound the files a tenant's users attach to their
// conversations (docs/API.md, "Attachments"). A zero field means its
// default (DefaultAttachmentLimits); the server checks every limit before
// it stores any byte of an upload.
type AttachmentLimits struct {
	// MaxFileBytes is the largest file accepted.
	MaxFileBytes int64 `json:"maxFileBytes,omitempty"`
	// MaxFilesPerConversation is how many attachments one conversation
	// may hold.
	MaxFilesPerConversation int `json:"maxFilesPerConversation,omitempty"`
	// MaxBytesPerUser is the total size of one user's attachments in the
	// tenant.
	MaxBytesPerUser int64 `json:"maxBytesPerUser,omitempty"`
}

// DefaultAttachmentLimits are the limits of a tenant that sets none:
// 10 MiB a file, 20 files a conversation, 100 MiB a user.
func DefaultAttachmentLimits() AttachmentLimits {
	return AttachmentLimits{
		MaxFileBytes:            10 << 20,
		MaxFilesPerConversation: 20,
		MaxBytesPerUser:         100 << 20,
	}
}

// Effective returns l with every zero or negative field replaced by its
// default.
func (l AttachmentLimits) Effective() AttachmentLimits {
	d := DefaultAttachmentLimits()
	l.MaxFileBytes = defaults.Positive(l.MaxFileBytes, d.MaxFileBytes)
	l.MaxFilesPerConversation = defaults.Positive(l.MaxFilesPerConversation, d.MaxFilesPerConversation)
	l.MaxBytesPerUser = defaults.Positive(l.MaxBytesPerUser, d.MaxBytesPerUser)
	return l
}

// Attachments returns the tenant's attachment limits as stored (zero
// fields: the defaults; see Effective).
func (s TenantSettings) Attachments() AttachmentLimits {
	return AttachmentLimits{MaxFileBytes: s.AttachmentMaxFileBytes, MaxFilesPerConversation: s.AttachmentMaxFilesPerConversation, MaxBytesPerUser: s.AttachmentMaxBytesPerUser}
}
