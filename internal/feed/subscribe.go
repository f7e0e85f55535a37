package feed

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/conversations"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// SubscribeConversation streams change notifications of a conversation the
// viewer may see, so that a second tab stays in sync, and tells when a
// document its answers cite changed (SOURCES_CHANGED, docevents.go,
// at most one per document-change broadcast). Events carry ids;
// clients refetch. The channel closes when ctx is done, and after
// CONVERSATION_DELETED. It subscribes before reading the conversation, so
// that a deletion in between still reaches the stream.
func (s *Service) SubscribeConversation(ctx context.Context, conversationID uuid.UUID) (<-chan ConversationEvent, error) {
	// A stream outlives a support grant's revoke: grants open no streams.
	ctx = authz.WithoutGrants(ctx)
	sub, err := s.broker.Subscribe(ctx, conversationTopic(conversationID))
	if err != nil {
		return nil, domain.Wrap(err, domain.CodeUnavailable, "stream unavailable")
	}
	conv, err := conversations.Load(ctx, s.client, conversationID, s.now())
	if err != nil {
		sub.Close()
		return nil, err
	}
	// A temporary chat's stream ends at its expiry as a deleted one's
	// does (internal/chat/temporary.go); the purge pass tells streams on
	// every instance too (ConversationPurged).
	var expiry <-chan time.Time
	var timer *time.Timer
	if conv.TemporaryExpiresAt != nil {
		timer = time.NewTimer(conv.TemporaryExpiresAt.Sub(s.now()))
		expiry = timer.C
	}
	docs := s.followDocuments(ctx, conv.TenantID)
	out := make(chan ConversationEvent, 16)
	go func() {
		defer close(out)
		defer docs.close()
		if timer != nil {
			defer timer.Stop()
		}
		for {
			if s.forwardConversation(ctx, conversationID, sub, docs, expiry, out) {
				return
			}
			if ctx.Err() != nil || errors.Is(sub.Err(), broker.ErrClosed) {
				return
			}
			// Lagged or forgotten while idle: notifications only, so
			// resubscribing is enough.
			if sub, err = s.broker.Subscribe(ctx, conversationTopic(conversationID)); err != nil {
				return
			}
		}
	}()
	return out, nil
}

// forwardConversation forwards sub's events to out until sub's channel
// closes (false: the caller decides whether to resubscribe) or the stream
// is over (true): ctx is done, or the conversation is gone
// (CONVERSATION_DELETED, sent last, also when expiry fires). A broadcast
// of docs that concerns attempts of the conversation the viewer may read
// becomes one SOURCES_CHANGED.
func (s *Service) forwardConversation(ctx context.Context, conversationID uuid.UUID, sub *broker.Subscription, docs *docFollow, expiry <-chan time.Time, out chan<- ConversationEvent) bool {
	for {
		var ce ConversationEvent
		select {
		case ev, ok := <-docs.C():
			b, ok := docs.batch(ctx, ev, ok)
			if !ok {
				continue
			}
			changes, err := s.citingAttempts(ctx, b, &conversationID)
			if err != nil {
				s.log.WarnContext(ctx, "document changes not checked for a conversation stream", "conversation", conversationID, "err", err)
				continue
			}
			if len(changes) == 0 {
				continue
			}
			c := changes[0]
			ce = ConversationEvent{Kind: ConversationSourcesChanged, ConversationID: conversationID, At: s.now(),
				ChangedAttemptIDs: c.attempts, ChangedAttempts: c.count}
		case ev, ok := <-sub.C():
			if !ok {
				return false
			}
			var p conversationPayload
			if json.Unmarshal(ev.Data, &p) != nil {
				continue
			}
			ce = ConversationEvent{Kind: ConversationEventKind(ev.Kind), ConversationID: conversationID,
				MessageID: p.Message, AttemptID: p.Attempt, AttemptStatus: p.Status,
				AttachmentID: p.File, AttachmentStatus: p.FileStatus, At: p.At}
		case <-expiry:
			ce = ConversationEvent{Kind: ConversationDeleted, ConversationID: conversationID, At: s.now()}
		case <-ctx.Done():
			sub.Close()
			return true
		}
		select {
		case out <- ce:
		case <-ctx.Done():
			sub.Close()
			return true
		}
		if ce.Kind == ConversationDeleted {
			// Nothing of the conversation is visible any more: the
			// stream ends after telling so.
			sub.Close()
			return true
		}
	}
}

// SubscribeViewer streams changes of the viewer's own conversations
// (docs/API.md, viewerEvents): created, updated (renamed, titled,
// summarised), archived, deleted, restored, and attempt status changes,
// the current branch selected (BRANCH_SELECTED, with the new leaf), and
// cited documents changed (SOURCES_CHANGED, docevents.go), made by anyone
// (the viewer on another device, an admin, the engine) on any instance,
// and attachments changing state (ATTACHMENT_UPDATED). Only events about
// conversations the viewer owns that are not temporary chats are
// published to their feed (publishViewer), and each event names its user,
// which is checked again here. Events carry ids; clients refetch. The channel
// closes when ctx is done. Events published before the subscription are
// not replayed: a client lists its conversations, then follows.
func (s *Service) SubscribeViewer(ctx context.Context) (<-chan ViewerEvent, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	topic := viewerTopic(v.TenantID, v.UserID)
	sub, err := s.broker.Subscribe(ctx, topic)
	if err != nil {
		return nil, domain.Wrap(err, domain.CodeUnavailable, "stream unavailable")
	}
	docs := s.followDocuments(ctx, v.TenantID)
	out := make(chan ViewerEvent, 16)
	go func() {
		defer close(out)
		defer docs.close()
		for {
			if s.forwardViewer(ctx, v, sub, docs, out) {
				return
			}
			if ctx.Err() != nil || errors.Is(sub.Err(), broker.ErrClosed) {
				return
			}
			// Lagged or forgotten while idle: notifications only, so
			// resubscribing is enough.
			if sub, err = s.broker.Subscribe(ctx, topic); err != nil {
				return
			}
		}
	}()
	return out, nil
}

// forwardViewer forwards the viewer feed sub's events to out until sub's
// channel closes (false: the caller decides whether to resubscribe) or ctx
// is done (true). A broadcast of docs becomes one SOURCES_CHANGED per
// conversation of the viewer with attempts citing a changed document the
// viewer may read.
func (s *Service) forwardViewer(ctx context.Context, v *viewer.Viewer, sub *broker.Subscription, docs *docFollow, out chan<- ViewerEvent) bool {
	send := func(ve ViewerEvent) bool {
		select {
		case out <- ve:
			return true
		case <-ctx.Done():
			sub.Close()
			return false
		}
	}
	for {
		select {
		case ev, ok := <-sub.C():
			if !ok {
				return false
			}
			var p viewerPayload
			if json.Unmarshal(ev.Data, &p) != nil || p.Tenant != v.TenantID || p.User != v.UserID {
				continue
			}
			if !send(ViewerEvent{Kind: ViewerEventKind(ev.Kind), ConversationID: p.Conversation,
				AttemptID: p.Attempt, AttemptStatus: p.Status, MessageID: p.Message,
				AttachmentID: p.File, AttachmentStatus: p.FileStatus, At: p.At}) {
				return true
			}
		case ev, ok := <-docs.C():
			b, ok := docs.batch(ctx, ev, ok)
			if !ok {
				continue
			}
			changes, err := s.citingAttempts(ctx, b, nil)
			if err != nil {
				s.log.WarnContext(ctx, "document changes not checked for a viewer feed", "err", err)
				continue
			}
			for _, c := range changes {
				if !send(ViewerEvent{Kind: ViewerSourcesChanged, ConversationID: c.conversation, At: s.now(),
					ChangedAttemptIDs: c.attempts, ChangedAttempts: c.count}) {
					return true
				}
			}
		case <-ctx.Done():
			sub.Close()
			return true
		}
	}
}
