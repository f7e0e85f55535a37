// Package organise is how one user organises their own conversations
// (docs/API.md, "Organising conversations"; internal/organise/README.md):
// pins, tags, folders and an integrator's metadata.
//
// Everything here is the owner's. Tags and folders are rows of their own
// (owner-scoped by internal/authz); a conversation carries pinned_at,
// folder_id and metadata, and its tags are conversation_tags rows whose
// create policy refuses a tag or a conversation that is not the viewer's.
// Every change of a conversation is one transaction whose first statement
// bumps the conversation's version (and so locks the row), with the
// expectedVersion check of the other conversation mutations (CONFLICT with
// extensions.currentVersion); a change that changes nothing is rolled back
// and keeps the version. After the commit the Notifier (internal/feed)
// publishes CONVERSATION_UPDATED to the conversation's and its owner's
// streams, on every replica.
//
// Only the owner changes anything: an admin's, a support agent's or
// another user's id is NOT_FOUND, byte for byte like an unknown one.
// Admins read the organisation of the tenant's conversations; a support
// agent reading a conversation through a grant sees none of it (Visible).
// Deleting a tag removes it from its conversations, deleting a folder
// unfiles its conversations and moves its child folders up to its parent,
// each in one transaction that bumps the versions of the conversations it
// changes. Filters (Filter) turn into storage predicates for the
// conversation lists; the engine knows nothing of GraphQL.
package organise

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Notifier publishes that conversations changed: CONVERSATION_UPDATED on
// each one's stream and its owner's feed (feed.Service.ConversationsUpdated).
// It never blocks on subscribers.
type Notifier interface {
	ConversationsUpdated(ctx context.Context, convs ...*ent.Conversation)
}

// Limits bound one user's organisation. Zero fields take the defaults.
type Limits struct {
	// TagsPerUser bounds the tags of one user (default 500).
	TagsPerUser int
	// TagsPerConversation bounds the tags of one conversation (default 50).
	TagsPerConversation int
	// FoldersPerUser bounds the folders of one user (default 200).
	FoldersPerUser int
	// FolderDepth bounds how deep folders nest; a top-level folder is at
	// depth 1 (default 5).
	FolderDepth int
}

// The default limits.
const (
	DefaultTagsPerUser         = 500
	DefaultTagsPerConversation = 50
	DefaultFoldersPerUser      = 200
	DefaultFolderDepth         = 5
)

// withDefaults fills zero limits.
func (l Limits) withDefaults() Limits {
	l.TagsPerUser = defaults.Positive(l.TagsPerUser, DefaultTagsPerUser)
	l.TagsPerConversation = defaults.Positive(l.TagsPerConversation, DefaultTagsPerConversation)
	l.FoldersPerUser = defaults.Positive(l.FoldersPerUser, DefaultFoldersPerUser)
	l.FolderDepth = defaults.Positive(l.FolderDepth, DefaultFolderDepth)
	return l
}

// Options configure a Service.
type Options struct {
	// Limits bound one user's organisation.
	Limits Limits
	// Now returns the current time (nil: time.Now).
	Now func() time.Time
}

// Service organises conversations on a privacy-enforcing Ent client.
type Service struct {
	client *ent.Client
	notify Notifier
	limits Limits
	now    func() time.Time
}

// New returns a Service on client that publishes changes through notify.
func New(client *ent.Client, notify Notifier, o Options) *Service {
	o.Now = defaults.Clock(o.Now)
	return &Service{client: client, notify: notify, limits: o.Limits.withDefaults(), now: o.Now}
}

// Limits returns the limits in force.
func (s *Service) Limits() Limits { return s.limits }

// Visible reports whether the viewer in ctx sees conv's organisation (pin,
// folder, tags, metadata): its owner and the tenant's admins do; anyone
// else, such as a support agent reading through a grant, does not.
func Visible(ctx context.Context, conv *ent.Conversation) bool {
	v := viewer.FromContext(ctx)
	if v == nil || conv == nil {
		return false
	}
	return conv.UserID == v.UserID || v.IsAdmin()
}
