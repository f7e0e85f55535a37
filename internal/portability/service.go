package portability

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/feed"
)

// Notifier announces new conversations on their owner's feed
// (*feed.Service).
type Notifier interface {
	ConversationChanged(ctx context.Context, conv *ent.Conversation, kind feed.ConversationEventKind, viewerKind feed.ViewerEventKind)
}

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
	// TextBytes bounds the text one import stores, in bytes (limit
	// "importText"): every message's content and, for every answer, its
	// attempt's copies of the answer and of its question (budget.go).
	// Zero: four times ContentBytes.
	TextBytes int
	// MessageBytes bounds one imported message's content, in bytes (limit
	// "importMessageSize"); a ChatGPT answer counts once its parts are
	// joined.
	MessageBytes int
	// Running bounds the imports that run at once on this instance;
	// another is refused with UNAVAILABLE (limit "runningImports").
	Running int
	// Timeout bounds one import, parsing and writing; one that takes
	// longer is cancelled and writes nothing (limit "importTime").
	Timeout time.Duration
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
	LimitImportText          = "importText"
	LimitImportMessageSize   = "importMessageSize"
	LimitImportRate          = "importRate"
	LimitRunningImports      = "runningImports"
	LimitImportTime          = "importTime"
)

// DefaultLimits are the limits of a service that configures none.
// TextBytes is left to follow ContentBytes (withDefaults).
func DefaultLimits() Limits {
	return Limits{ContentBytes: 2 << 20, Conversations: 100, Messages: 2000, MessageBytes: 512 << 10,
		Running: 2, Timeout: time.Minute, ConversationPage: 50, MessagePage: 200}
}

// DefaultImportRate is each user's import rate when Options sets none.
var DefaultImportRate = askrate.Rate{PerMinute: 6, Burst: 5}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	l.ContentBytes = defaults.Positive(l.ContentBytes, d.ContentBytes)
	l.Conversations = defaults.Positive(l.Conversations, d.Conversations)
	l.Messages = defaults.Positive(l.Messages, d.Messages)
	l.TextBytes = defaults.Positive(l.TextBytes, 4*l.ContentBytes)
	l.MessageBytes = defaults.Positive(l.MessageBytes, d.MessageBytes)
	l.Running = defaults.Positive(l.Running, d.Running)
	l.Timeout = defaults.Positive(l.Timeout, d.Timeout)
	l.ConversationPage = defaults.Positive(l.ConversationPage, d.ConversationPage)
	l.MessagePage = defaults.Positive(l.MessagePage, d.MessagePage)
	return l
}

// Options configure a Service.
type Options struct {
	Limits Limits
	// Now returns the current time (nil: time.Now).
	Now func() time.Time
	// Limiter meters each user's imports (nil: not metered), in buckets
	// of their own (importKey); askrate.DBLimiter shares them across
	// replicas.
	Limiter askrate.Limiter
	// ImportRate is each user's import rate (zero Burst:
	// DefaultImportRate).
	ImportRate askrate.Rate
}

// Service exports and imports conversations. Every read and write goes
// through client, whose privacy policies filter the rows; imported
// conversations are announced on notify.
type Service struct {
	client  *ent.Client
	notify  Notifier
	limits  Limits
	now     func() time.Time
	limiter askrate.Limiter
	rate    askrate.Rate
	// running holds one token per import running on this instance.
	running chan struct{}
	// beforeWrite, when set (by tests), runs before an import's write.
	beforeWrite func(context.Context)
}

// New returns a Service reading and writing through client
// (privacy-enforcing) and announcing imports on notify.
func New(client *ent.Client, notify Notifier, o Options) *Service {
	o.Now = defaults.Clock(o.Now)
	if o.ImportRate.Burst <= 0 {
		o.ImportRate = DefaultImportRate
	}
	l := o.Limits.withDefaults()
	return &Service{client: client, notify: notify, limits: l, now: o.Now,
		limiter: o.Limiter, rate: o.ImportRate, running: make(chan struct{}, l.Running)}
}
