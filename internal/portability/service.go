package portability

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/chat"
)

// Engine is the part of the conversation engine (*chat.Engine) that
// export and import use: the re-authorisation of sources, the computed
// status of a conversation, the knowledge base an import may use and the
// write of imported conversations.
type Engine interface {
	SourcesOf(ctx context.Context, sources []*ent.Source) ([]chat.SourceView, error)
	ConversationStatus(conv *ent.Conversation) conversation.Status
	ImportConversations(ctx context.Context, kbID *uuid.UUID, convs []chat.ImportConversation) ([]*ent.Conversation, error)
	KnowledgeBaseFor(ctx context.Context, id *uuid.UUID) (uuid.UUID, error)
}

var _ Engine = (*chat.Engine)(nil)

// Limits bound an import and the pages of an export. Zero fields take
// DefaultLimits.
type Limits struct {
	// ContentBytes bounds an import's content, in bytes (limit
	// "importSize").
	ContentBytes int
	// Conversations bounds the conversations of one import (limit
	// "importConversations").
	Conversations int
	// Messages bounds the messages of one imported conversation (limit
	// "importMessages"), counted after skipped nodes are left out.
	Messages int
	// ConversationPage and MessagePage are the page sizes in which an
	// export reads conversations and messages.
	ConversationPage int
	MessagePage      int
}

// The limit names of extensions.limit.
const (
	LimitImportSize          = "importSize"
	LimitImportConversations = "importConversations"
	LimitImportMessages      = "importMessages"
)

// DefaultLimits are the limits of a service that configures none.
func DefaultLimits() Limits {
	return Limits{ContentBytes: 2 << 20, Conversations: 100, Messages: 2000, ConversationPage: 50, MessagePage: 200}
}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.ContentBytes <= 0 {
		l.ContentBytes = d.ContentBytes
	}
	if l.Conversations <= 0 {
		l.Conversations = d.Conversations
	}
	if l.Messages <= 0 {
		l.Messages = d.Messages
	}
	if l.ConversationPage <= 0 {
		l.ConversationPage = d.ConversationPage
	}
	if l.MessagePage <= 0 {
		l.MessagePage = d.MessagePage
	}
	return l
}

// Options configure a Service.
type Options struct {
	Limits Limits
	// Now returns the current time (nil: time.Now).
	Now func() time.Time
}

// Service exports and imports conversations. Every read goes through
// client, whose privacy policies filter the rows; the writes go through
// the engine.
type Service struct {
	client *ent.Client
	engine Engine
	limits Limits
	now    func() time.Time
}

// New returns a Service reading through client (privacy-enforcing) and
// writing through engine.
func New(client *ent.Client, engine Engine, o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{client: client, engine: engine, limits: o.Limits.withDefaults(), now: o.Now}
}
