package feed

import (
	"time"

	"github.com/google/uuid"
)

// ConversationEventKind is the type of a conversation stream event.
type ConversationEventKind string

// The conversation stream events.
const (
	ConversationMessageCreated ConversationEventKind = "MESSAGE_CREATED"
	ConversationAttemptUpdated ConversationEventKind = "ATTEMPT_UPDATED"
	ConversationUpdated        ConversationEventKind = "CONVERSATION_UPDATED"
	// ConversationDeleted is the last event of a conversation's stream: it
	// was deleted, and its rows are no longer visible to anyone.
	ConversationDeleted ConversationEventKind = "CONVERSATION_DELETED"
	// ConversationBranchSelected: the current branch changed; MessageID is
	// the new current leaf.
	ConversationBranchSelected ConversationEventKind = "BRANCH_SELECTED"
	// ConversationSourcesChanged: documents cited by attempts of the
	// conversation changed (ChangedAttemptIDs, ChangedAttempts).
	ConversationSourcesChanged ConversationEventKind = "SOURCES_CHANGED"
	// ConversationAttachmentUpdated: an attachment of the conversation
	// changed state (AttachmentID, AttachmentStatus). Attachments are
	// their owner's alone: the API delivers it only to a subscriber who
	// may read the attachment.
	ConversationAttachmentUpdated ConversationEventKind = "ATTACHMENT_UPDATED"
)

// ConversationEvent tells a second tab that something changed: a message
// was created, an attempt changed status, or the conversation itself
// changed (title, status, summary). Clients refetch the row by id.
type ConversationEvent struct {
	Kind           ConversationEventKind
	ConversationID uuid.UUID
	MessageID      *uuid.UUID
	AttemptID      *uuid.UUID
	AttemptStatus  string
	At             time.Time
	// ChangedAttemptIDs are, for SOURCES_CHANGED, attempts that cite a
	// changed document (at most MaxChangedAttemptIDs); ChangedAttempts
	// counts them all.
	ChangedAttemptIDs []uuid.UUID
	ChangedAttempts   int
	// AttachmentID and AttachmentStatus: ATTACHMENT_UPDATED's attachment.
	AttachmentID     *uuid.UUID
	AttachmentStatus string
}

// ViewerEventKind is the type of a viewer feed event.
type ViewerEventKind string

// The viewer feed events.
const (
	ViewerConversationCreated ViewerEventKind = "CONVERSATION_CREATED"
	// ViewerConversationUpdated: renamed, titled, or the summary changed.
	ViewerConversationUpdated  ViewerEventKind = "CONVERSATION_UPDATED"
	ViewerConversationArchived ViewerEventKind = "CONVERSATION_ARCHIVED"
	// ViewerConversationDeleted: deleted by its owner or an admin; nothing
	// of it is visible any more.
	ViewerConversationDeleted  ViewerEventKind = "CONVERSATION_DELETED"
	ViewerConversationRestored ViewerEventKind = "CONVERSATION_RESTORED"
	// ViewerAttemptUpdated: an attempt became PENDING, COMPLETED or FAILED.
	ViewerAttemptUpdated ViewerEventKind = "ATTEMPT_UPDATED"
	// ViewerBranchSelected: the conversation's current branch changed;
	// MessageID is the new current leaf.
	ViewerBranchSelected ViewerEventKind = "BRANCH_SELECTED"
	// ViewerSourcesChanged: documents cited by attempts of the
	// conversation changed (ChangedAttemptIDs, ChangedAttempts).
	ViewerSourcesChanged ViewerEventKind = "SOURCES_CHANGED"
	// ViewerAttachmentUpdated: an attachment of the conversation changed
	// state (AttachmentID, AttachmentStatus; AttachmentChanged).
	ViewerAttachmentUpdated ViewerEventKind = "ATTACHMENT_UPDATED"
)

// ViewerEvent tells a user's other devices that one of their conversations
// changed, whoever changed it. Clients refetch the row by id.
type ViewerEvent struct {
	Kind           ViewerEventKind
	ConversationID uuid.UUID
	AttemptID      *uuid.UUID
	AttemptStatus  string
	// MessageID is the new current leaf of a BRANCH_SELECTED event.
	MessageID *uuid.UUID
	// ChangedAttemptIDs are, for SOURCES_CHANGED, attempts that cite a
	// changed document (at most MaxChangedAttemptIDs); ChangedAttempts
	// counts them all.
	ChangedAttemptIDs []uuid.UUID
	ChangedAttempts   int
	// AttachmentID and AttachmentStatus name the attachment of an
	// ATTACHMENT_UPDATED event and its new status.
	AttachmentID     *uuid.UUID
	AttachmentStatus string
	At               time.Time
}
