// Package feed decides who hears what of conversations, once: the
// conversation streams (conversationEvents) and the viewer feeds
// (viewerEvents) of docs/API.md, on every instance, through the broker.
//
// Services publish into it, as they change conversations: the engine
// (internal/chat: created, renamed, archived, deleted, messages,
// attempts, branches), internal/organise (pins, tags, folders, metadata:
// ConversationsUpdated) and internal/attachment (AttachmentChanged). The
// API subscribes (SubscribeConversation, SubscribeViewer). The rule "an
// event about a temporary chat never reaches its owner's viewer feed"
// lives here alone (publishViewer); so does the turning of document-change
// broadcasts (internal/docwatch) into SOURCES_CHANGED (docevents.go).
//
// Events carry ids; clients refetch the rows, re-authorised as a fresh
// query would be. Publishing never blocks on subscribers and never fails
// the change it tells of: a broker failure is logged, and subscribers
// resync from the database.
//
// The files: events.go (the event kinds and models the engine and the API
// share), publish.go (the publishers and the temporary-chat rule),
// subscribe.go (the streams), docevents.go (SOURCES_CHANGED).
package feed

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/broker"
)

// Deps are what a Service needs.
type Deps struct {
	// Client is the Ent client (privacy-enforcing): subscriptions read
	// what they show as the subscribing viewer.
	Client *ent.Client
	// Broker carries the events between instances.
	Broker broker.Broker
	// Logger is optional (nil: slog.Default()).
	Logger *slog.Logger
	// Now is optional (nil: time.Now).
	Now func() time.Time
}

// Service publishes and streams conversation and viewer events. Build it
// once per process with New, in the composition root, and give it to
// every service that publishes and to the API.
type Service struct {
	client *ent.Client
	broker broker.Broker
	log    *slog.Logger
	now    func() time.Time
}

// New returns the feed service of deps.
func New(deps Deps) *Service {
	s := &Service{client: deps.Client, broker: deps.Broker, log: deps.Logger, now: deps.Now}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// conversationTopic is the broker topic of one conversation's stream.
func conversationTopic(id uuid.UUID) string { return "conversation:" + id.String() }

// viewerTopic is the feed topic of one user of one tenant. The ids are
// hashed so that the topic name is short and made of safe characters for
// any broker (a NATS subject, a NOTIFY payload) whatever the ids contain;
// the payload names the user too, and subscribers check it.
func viewerTopic(tenantID, userID string) string {
	sum := sha256.Sum256([]byte(tenantID + "\x00" + userID))
	return "viewer:" + hex.EncodeToString(sum[:16])
}

// conversationPayload is the JSON body of a conversation event.
type conversationPayload struct {
	Message *uuid.UUID `json:"m,omitempty"`
	Attempt *uuid.UUID `json:"a,omitempty"`
	Status  string     `json:"s,omitempty"`
	// File and FileStatus: the attachment of an ATTACHMENT_UPDATED event.
	File       *uuid.UUID `json:"f,omitempty"`
	FileStatus string     `json:"fs,omitempty"`
	At         time.Time  `json:"at"`
}

// viewerPayload is the JSON body of a viewer feed event.
type viewerPayload struct {
	Tenant       string     `json:"tn"`
	User         string     `json:"u"`
	Conversation uuid.UUID  `json:"c"`
	Attempt      *uuid.UUID `json:"a,omitempty"`
	Status       string     `json:"s,omitempty"`
	// Message is the new current leaf of a BRANCH_SELECTED event.
	Message *uuid.UUID `json:"m,omitempty"`
	// File and FileStatus: the attachment of an ATTACHMENT_UPDATED event.
	File       *uuid.UUID `json:"f,omitempty"`
	FileStatus string     `json:"fs,omitempty"`
	At         time.Time  `json:"at"`
}
