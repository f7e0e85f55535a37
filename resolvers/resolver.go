// Package resolvers implements ragchat's GraphQL resolvers. They are thin:
// they parse the input, call, and map the result. Reads go through Ent
// (whose privacy policies do every tenant, owner and ACL filter) with
// entgql field collection; writes, streams and the reads that involve a
// policy go through the services that decide roles and which rows show:
// the conversation engine (internal/chat: conversations, asks, attempt
// streams), the feed (internal/feed: conversation and viewer events),
// delegated support access (internal/support), the tenant settings
// (internal/tenantsettings), the quotas and usage ledger (internal/quota),
// feedback (internal/feedback) and the knowledge service.
// The read audit (internal/readaudit) is scoped per operation
// (OperationScope), and so are two batches that keep a page of messages at
// a constant number of statements: the re-authorisation of citations
// (sourceauth.go) and Message.siblings (siblings.go). The message-tree
// reads (Conversation.currentPath, messagetree.resolvers.go, with
// currentpath.go) walk the current branch through internal/chat/tree.
// Storage errors are classified by store.Classify.
// Resolvers never filter by tenant or owner themselves, except to narrow a
// list to the viewer's own conversations.
//
// The schema is one file per feature (schema/{feature}.graphqls), and gqlgen
// (follow-schema layout) gives each its {feature}.resolvers.go: generated
// signatures around the resolvers' hand-written bodies, which gqlgen keeps
// on every regeneration; ent.resolvers.go is graph/ent.graphqls's. The
// other files are hand-written: the root resolver and its dependencies
// (resolver.go), the service interfaces beside their feature's helpers,
// and the helpers several resolvers share (conversationop.go,
// askpayload.go, connections.go, eventmodels.go, eventrows.go,
// streams.go, ...).
package resolvers

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/chans"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/feedback"
	"github.com/ragchat/ragchat/internal/sourceauth"
)

// This file will not be regenerated automatically.

// Engine is the part of the conversation engine (*chat.Engine) the API uses.
type Engine interface {
	CreateConversation(ctx context.Context, in chat.CreateConversationInput) (*ent.Conversation, error)
	Conversation(ctx context.Context, id uuid.UUID) (*ent.Conversation, error)
	RenameConversation(ctx context.Context, id uuid.UUID, title string, opts ...chat.UpdateOption) (*ent.Conversation, error)
	ArchiveConversation(ctx context.Context, id uuid.UUID, opts ...chat.UpdateOption) (*ent.Conversation, error)
	UnarchiveConversation(ctx context.Context, id uuid.UUID, opts ...chat.UpdateOption) (*ent.Conversation, error)
	SetConversationHistoryStrategy(ctx context.Context, id uuid.UUID, strategy *string, opts ...chat.UpdateOption) (*ent.Conversation, error)
	DeleteConversation(ctx context.Context, id uuid.UUID, reason string, opts ...chat.UpdateOption) (*ent.Conversation, error)
	RestoreConversation(ctx context.Context, id uuid.UUID, opts ...chat.UpdateOption) (*ent.Conversation, error)
	KeepConversation(ctx context.Context, id uuid.UUID, opts ...chat.UpdateOption) (*ent.Conversation, error)
	Ask(ctx context.Context, in chat.AskInput) (*chat.AskResult, error)
	SelectBranch(ctx context.Context, conversationID, messageID uuid.UUID) (*ent.Conversation, error)
	LegacyLeaf(ctx context.Context, conversationID uuid.UUID) (*uuid.UUID, error)
	Retry(ctx context.Context, in chat.RetryInput) (*chat.AskResult, error)
	Reask(ctx context.Context, in chat.RetryInput) (*chat.AskResult, error)
	Cancel(ctx context.Context, attemptID uuid.UUID) (*ent.Attempt, error)
	SubscribeAttempt(ctx context.Context, attemptID uuid.UUID, afterSeq int) (<-chan chat.AttemptEvent, error)
}

var _ Engine = (*chat.Engine)(nil)

// AccessStamps is the access stamp of the viewer's tenant
// (*authwatch.Access): it moves when what the viewer may read may have
// changed, on any replica.
type AccessStamps interface {
	ViewerStamp(ctx context.Context) uint64
}

// everChanging is the AccessStamps of a server that follows none: every
// stamp is new, so no verdict is reused.
type everChanging struct{ n atomic.Uint64 }

func (e *everChanging) ViewerStamp(context.Context) uint64 { return e.n.Add(1) }

// Forks copies the path to a message into a new conversation
// (*fork.Service).
type Forks interface {
	Fork(ctx context.Context, messageID uuid.UUID, clientRequestID string) (*ent.Conversation, error)
}

// Feedback records a user's rating of one exact answer (*feedback.Service).
type Feedback interface {
	Submit(ctx context.Context, in feedback.Input) (*ent.Feedback, error)
}

// Feed streams conversation and viewer events (*feed.Service): the
// conversationEvents and viewerEvents subscriptions.
type Feed interface {
	SubscribeConversation(ctx context.Context, conversationID uuid.UUID) (<-chan feed.ConversationEvent, error)
	SubscribeViewer(ctx context.Context) (<-chan feed.ViewerEvent, error)
}

var _ Feed = (*feed.Service)(nil)

// SubscriptionGate admits a new subscription. It returns the context the
// subscription must run under (cancelled on server shutdown) and a release
// function, or an error (RATE_LIMITED when the connection has too many
// subscriptions, UNAVAILABLE while shutting down).
type SubscriptionGate interface {
	Subscribe(ctx context.Context, kind string) (context.Context, func(), error)
}

// Limits bounds the API's own input. Limits on questions, comments and the
// ask rate belong to the engine (chat.Limits), the document size to the
// knowledge service (knowledge.Options).
type Limits struct {
	// MaxNodes bounds the ids of one nodes(ids:) call.
	MaxNodes int
}

// withDefaults fills zero limits.
func (l Limits) withDefaults() Limits {
	if l.MaxNodes <= 0 {
		l.MaxNodes = 100
	}
	return l
}

// Deps are what the resolvers need.
type Deps struct {
	// Client is the Ent client (privacy-enforcing).
	Client *ent.Client
	// NodeType finds the table of a node id the viewer may see
	// (store.DB.NodeType), or fails with store.ErrUnknownNode.
	NodeType func(context.Context, uuid.UUID) (string, error)
	// Engine runs conversations.
	Engine Engine
	// Feed streams the conversations' changes (internal/feed), the one
	// the engine and the other services publish into.
	Feed Feed
	// Support runs delegated support access (internal/support).
	Support Support
	// TenantSettings reads and updates the tenant settings
	// (internal/tenantsettings).
	TenantSettings TenantSettings
	// Knowledge administers knowledge bases and documents; nil makes the
	// knowledge mutations UNAVAILABLE.
	Knowledge Knowledge
	// Organise organises conversations (internal/organise); nil makes its
	// operations UNAVAILABLE.
	Organise Organise
	// Usage serves the quotas and the usage ledger (internal/quota's
	// Service); nil makes its operations UNAVAILABLE.
	Usage Usage
	// Portability exports and imports conversations
	// (internal/portability); nil makes them UNAVAILABLE.
	Portability Portability
	// Sharing runs share links (internal/sharing); nil makes them
	// UNAVAILABLE.
	Sharing Sharing
	// Models manages and lists model profiles (internal/modelprofile);
	// nil offers none (availableModels is empty, the mutations UNAVAILABLE).
	Models Models
	// Attachments runs conversation attachments (internal/attachment);
	// nil makes uploads UNAVAILABLE and lists empty.
	Attachments Attachments
	// Feedback records ratings of answers (internal/feedback); nil makes
	// submitFeedback UNAVAILABLE.
	Feedback Feedback
	// Forks copies conversation paths (internal/fork); nil makes
	// forkConversation UNAVAILABLE.
	Forks Forks
	// Access is this replica's document-access stamps
	// (*authwatch.Access), under which re-authorised sources are reused;
	// nil re-authorises them on every use.
	Access AccessStamps
	// Subscriptions admits subscriptions; nil admits every one.
	Subscriptions SubscriptionGate
	// Limits bounds inputs; zero fields take defaults.
	Limits Limits
	// DeliverAttempt is the transport's delivery policy of attempt
	// streams (internal/server coalesces DELTA events); nil sends every
	// event as it comes.
	DeliverAttempt AttemptDelivery
	// Now returns the current time (nil: time.Now).
	Now func() time.Time
}

// Resolver is the root resolver.
type Resolver struct {
	client    *ent.Client
	nodeType  func(context.Context, uuid.UUID) (string, error)
	engine    Engine
	feed      Feed
	support   Support
	settings  TenantSettings
	knowledge Knowledge
	organise  Organise
	usage     Usage
	sharing   Sharing
	subs      SubscriptionGate
	limits    Limits
	deliver   AttemptDelivery
	now       func() time.Time
	// portability exports and imports conversations (nil: UNAVAILABLE).
	portability Portability
	// models manages model profiles (nil: none offered).
	models Models
	// attachments runs attachments (nil: UNAVAILABLE).
	attachments Attachments
	// feedback records ratings (nil: UNAVAILABLE).
	feedback Feedback
	// forks copies conversation paths (nil: UNAVAILABLE).
	forks Forks
	// access stamps document-access changes (never nil: New fills in a
	// stamp that always moves).
	access AccessStamps
	// reauthorise re-authorises source rows for the viewer in ctx:
	// sourceauth.Of on client (tests count its calls).
	reauthorise func(context.Context, []*ent.Source) ([]sourceauth.View, error)
}

// AttemptDelivery forwards an attempt's events from src to send until src
// closes, ctx ends or send reports false, and then drains src (the engine
// closes it once ctx ends), deciding on the way when each event goes out:
// it may merge DELTA events, never reorder or drop text.
type AttemptDelivery func(ctx context.Context, src <-chan chat.AttemptEvent, send func(chat.AttemptEvent) bool)

// deliverEach is the AttemptDelivery that sends every event as it comes.
func deliverEach(ctx context.Context, src <-chan chat.AttemptEvent, send func(chat.AttemptEvent) bool) {
	for {
		select {
		case ev, ok := <-src:
			if !ok {
				return
			}
			if !send(ev) {
				chans.Drain(src)
				return
			}
		case <-ctx.Done():
			chans.Drain(src)
			return
		}
	}
}

// New returns the root resolver. The source collector must be installed
// on d.Client (InstallSourceCollector), where the client is opened.
func New(d Deps) *Resolver {
	d.Now = defaults.Clock(d.Now)
	if d.DeliverAttempt == nil {
		d.DeliverAttempt = deliverEach
	}
	if d.Access == nil {
		d.Access = &everChanging{}
	}
	return &Resolver{
		client:      d.Client,
		nodeType:    d.NodeType,
		engine:      d.Engine,
		feed:        d.Feed,
		support:     d.Support,
		settings:    d.TenantSettings,
		knowledge:   d.Knowledge,
		organise:    d.Organise,
		usage:       d.Usage,
		sharing:     d.Sharing,
		subs:        d.Subscriptions,
		limits:      d.Limits.withDefaults(),
		deliver:     d.DeliverAttempt,
		now:         d.Now,
		portability: d.Portability,
		models:      d.Models,
		attachments: d.Attachments,
		feedback:    d.Feedback,
		forks:       d.Forks,
		access:      d.Access,
		reauthorise: func(ctx context.Context, rows []*ent.Source) ([]sourceauth.View, error) {
			return sourceauth.Of(ctx, d.Client, rows)
		},
	}
}
