package chat

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/broker"
)

// Broker topics.
func attemptTopic(id uuid.UUID) string      { return "attempt:" + id.String() }
func conversationTopic(id uuid.UUID) string { return "conversation:" + id.String() }

// viewerTopic is the feed topic of one user of one tenant. The ids are
// hashed so that the topic name is short and made of safe characters for
// any broker (a NATS subject, a NOTIFY payload) whatever the ids contain;
// the payload names the user too, and subscribers check it.
func viewerTopic(tenantID, userID string) string {
	sum := sha256.Sum256([]byte(tenantID + "\x00" + userID))
	return "viewer:" + hex.EncodeToString(sum[:16])
}

// attemptPayload is the JSON body of an attempt event on the broker. It is
// kept small (NOTIFY payloads must stay under 8000 bytes): sources carry
// short snippets only.
type attemptPayload struct {
	Text            string         `json:"t,omitempty"`
	Question        string         `json:"q,omitempty"`
	RequiresHistory bool           `json:"h,omitempty"`
	Sources         []sourcePacket `json:"s,omitempty"`
	Code            string         `json:"c,omitempty"`
	Message         string         `json:"m,omitempty"`
}

// sourcePacket is a citation snapshot on the wire, before it is saved.
type sourcePacket struct {
	ID       uuid.UUID `json:"id"`
	Chunk    uuid.UUID `json:"ch"`
	Document uuid.UUID `json:"d"`
	Label    string    `json:"l"`
	Rank     int       `json:"r"`
	Score    float64   `json:"sc"`
	Snippet  string    `json:"sn"`
	Title    string    `json:"ti"`
	Version  int       `json:"v"`
	Hash     string    `json:"h,omitempty"`
	// Attachment is set for a chunk of a conversation attachment: Chunk
	// is then the attachment chunk, Document is zero.
	Attachment *uuid.UUID `json:"at,omitempty"`
}

func (p sourcePacket) source(attemptID uuid.UUID) *ent.Source {
	chunk, doc := p.Chunk, p.Document
	if p.Attachment != nil {
		return &ent.Source{
			ID: p.ID, AttemptID: attemptID, Kind: source.KindATTACHMENT, AttachmentID: p.Attachment, Label: p.Label,
			Rank: p.Rank, Score: p.Score, Snippet: p.Snippet, DocumentTitle: p.Title, DocumentVersion: p.Version,
			ChunkHash: nonEmpty(p.Hash),
		}
	}
	return &ent.Source{
		ID: p.ID, AttemptID: attemptID, ChunkID: &chunk, DocumentID: &doc, Label: p.Label,
		Rank: p.Rank, Score: p.Score, Snippet: p.Snippet, DocumentTitle: p.Title, DocumentVersion: p.Version,
		ChunkHash: nonEmpty(p.Hash), Kind: source.KindDOCUMENT,
	}
}

// nonEmpty is a pointer to s, or nil for "".
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
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

// publishAttempt sends one attempt event. A broker failure never fails the
// answer: subscribers resync from the database.
func (e *Engine) publishAttempt(ctx context.Context, id uuid.UUID, kind AttemptEventKind, seq int, p attemptPayload) {
	data, err := json.Marshal(p)
	if err != nil {
		e.log.ErrorContext(ctx, "encode attempt event", "err", err)
		return
	}
	_, err = e.broker.Publish(context.WithoutCancel(ctx), broker.Event{Topic: attemptTopic(id), Kind: string(kind), Seq: seq, Data: data})
	if err != nil {
		e.log.WarnContext(ctx, "publish attempt event", "attempt", id, "kind", kind, "err", err)
	}
}

// publishConversation notifies a conversation's subscribers of a change.
func (e *Engine) publishConversation(ctx context.Context, id uuid.UUID, ev ConversationEvent) {
	data, err := json.Marshal(conversationPayload{Message: ev.MessageID, Attempt: ev.AttemptID, Status: ev.AttemptStatus,
		File: ev.AttachmentID, FileStatus: ev.AttachmentStatus, At: e.now()})
	if err != nil {
		return
	}
	_, err = e.broker.Publish(context.WithoutCancel(ctx), broker.Event{Topic: conversationTopic(id), Kind: string(ev.Kind), Data: data})
	if err != nil {
		e.log.WarnContext(ctx, "publish conversation event", "conversation", id, "err", err)
	}
}

// ownerFeed is the viewer feed an event about one conversation goes to:
// its owner's (tenant, user), and whether the conversation is a temporary
// chat. Build it with feedOf (from the conversation row) or
// e.conversationFeed (when only the id is at hand); publishViewer applies
// the temporary-chat rule to it.
type ownerFeed struct {
	tenantID, userID string
	temporary        bool
}

// feedOf is the owner feed of conv.
func feedOf(conv *ent.Conversation) ownerFeed {
	return ownerFeed{tenantID: conv.TenantID, userID: conv.UserID, temporary: authz.IsTemporary(conv)}
}

// conversationFeed is the owner feed (tenantID, userID) of conversation
// id, whose temporariness is read (temporaryConversation).
func (e *Engine) conversationFeed(ctx context.Context, tenantID, userID string, id uuid.UUID) ownerFeed {
	return ownerFeed{tenantID: tenantID, userID: userID, temporary: e.temporaryConversation(ctx, id)}
}

// publishViewer notifies the feed of a conversation's owner, whoever made
// the change: the owner, an admin, or the engine. It is the one way onto
// viewerEvents, and the one place of the temporary-chat rule there: an
// event about a temporary chat is never published, so another device of
// the owner never learns of it (temporary.go).
func (e *Engine) publishViewer(ctx context.Context, to ownerFeed, ev ViewerEvent) {
	if to.temporary {
		return
	}
	data, err := json.Marshal(viewerPayload{Tenant: to.tenantID, User: to.userID, Conversation: ev.ConversationID,
		Attempt: ev.AttemptID, Status: ev.AttemptStatus, Message: ev.MessageID,
		File: ev.AttachmentID, FileStatus: ev.AttachmentStatus, At: e.now()})
	if err != nil {
		return
	}
	_, err = e.broker.Publish(context.WithoutCancel(ctx), broker.Event{Topic: viewerTopic(to.tenantID, to.userID), Kind: string(ev.Kind), Data: data})
	if err != nil {
		e.log.WarnContext(ctx, "publish viewer event", "conversation", ev.ConversationID, "err", err)
	}
}

// conversationChanged notifies a conversation's subscribers (kind) and its
// owner's feed (feed).
func (e *Engine) conversationChanged(ctx context.Context, conv *ent.Conversation, kind ConversationEventKind, feed ViewerEventKind) {
	e.publishConversation(ctx, conv.ID, ConversationEvent{Kind: kind})
	e.publishViewer(ctx, feedOf(conv), ViewerEvent{Kind: feed, ConversationID: conv.ID})
}

// attemptChanged publishes an attempt status change on its conversation
// and its owner's feed.
func (e *Engine) attemptChanged(ctx context.Context, a *ent.Attempt) {
	e.attemptChangedIn(ctx, a, e.temporaryAttempt(ctx, a))
}

// attemptChangedIn is attemptChanged where the caller knows whether the
// attempt's conversation is temporary.
func (e *Engine) attemptChangedIn(ctx context.Context, a *ent.Attempt, temporary bool) {
	id := a.ID
	e.publishConversation(ctx, a.ConversationID, ConversationEvent{Kind: ConversationAttemptUpdated, AttemptID: &id, AttemptStatus: string(a.Status)})
	e.publishViewer(ctx, ownerFeed{tenantID: a.TenantID, userID: a.OwnerID, temporary: temporary},
		ViewerEvent{Kind: ViewerAttemptUpdated, ConversationID: a.ConversationID, AttemptID: &id, AttemptStatus: string(a.Status)})
}

// messageCreated publishes a new message on its conversation.
func (e *Engine) messageCreated(ctx context.Context, m *ent.Message) {
	id := m.ID
	e.publishConversation(ctx, m.ConversationID, ConversationEvent{Kind: ConversationMessageCreated, MessageID: &id})
}

// branchSelected publishes that conv's current branch changed (an edit, a
// retry, a selected branch, an ask on another branch): BRANCH_SELECTED
// with the new current leaf, on the conversation and its owner's feed, so
// that every device of the owner follows, on any instance.
func (e *Engine) branchSelected(ctx context.Context, conv *ent.Conversation, leafID uuid.UUID) {
	id := leafID
	e.publishConversation(ctx, conv.ID, ConversationEvent{Kind: ConversationBranchSelected, MessageID: &id})
	e.publishViewer(ctx, feedOf(conv), ViewerEvent{Kind: ViewerBranchSelected, ConversationID: conv.ID, MessageID: &id})
}
