package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// admit asks the subscription gate for a slot. The returned context ends on
// server shutdown; release must be called when the subscription ends.
func (r *Resolver) admit(ctx context.Context, kind string) (context.Context, func(), error) {
	if r.subs == nil {
		return ctx, func() {}, nil
	}
	return r.subs.Subscribe(ctx, kind)
}

// attemptEvents streams one attempt's events after afterSeq.
func (r *Resolver) attemptEvents(ctx context.Context, id uuid.UUID, afterSeq *int) (<-chan *model.AttemptEvent, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	after := 0
	if afterSeq != nil {
		if *afterSeq < 0 {
			return nil, badInput("afterSeq", "afterSeq must not be negative")
		}
		after = *afterSeq
	}
	ctx, release, err := r.admit(ctx, "attempt")
	if err != nil {
		return nil, err
	}
	src, err := r.engine.SubscribeAttempt(ctx, id, after)
	if err != nil {
		release()
		return nil, notFound(err, "attempt")
	}
	out := make(chan *model.AttemptEvent)
	go func() {
		defer release()
		defer close(out)
		r.deliver(ctx, src, func(ev chat.AttemptEvent) bool {
			select {
			case out <- attemptEventModel(ctx, ev):
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	return out, nil
}

// conversationEvents streams change notifications of one conversation.
func (r *Resolver) conversationEvents(ctx context.Context, id uuid.UUID) (<-chan *model.ConversationEvent, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	ctx, release, err := r.admit(ctx, "conversation")
	if err != nil {
		return nil, err
	}
	src, err := r.feed.SubscribeConversation(ctx, id)
	if err != nil {
		release()
		return nil, notFound(err, "conversation")
	}
	out := make(chan *model.ConversationEvent)
	first := &model.ConversationEvent{Kind: model.ConversationEventKindSubscribed, ConversationID: id, At: r.now()}
	go func() {
		defer release()
		defer close(out)
		forward(ctx, src, out, first, func(ev feed.ConversationEvent) *model.ConversationEvent {
			if ev.Kind == feed.ConversationAttachmentUpdated && !r.mayReadAttachment(ctx, ev.AttachmentID) {
				return nil
			}
			return conversationEventModel(ev)
		})
	}()
	return out, nil
}

// forward sends first, then converts and sends every event of src to out
// (but those convert makes nil, which the viewer may not see), until src
// closes or ctx ends. When ctx ends first it drains src, which the feed
// closes on cancellation, so that neither side's goroutine is left
// blocked.
//
// first is the stream's SUBSCRIBED event (docs/API.md, "Knowing a stream
// is live"): src is the feed's subscription, registered with the broker
// before the engine returned it, so every event published after the client
// receives first reaches src. graphql-transport-ws and graphql-sse
// acknowledge no subscribe; this is the client's moment at which the
// stream is live.
func forward[E any, M comparable](ctx context.Context, src <-chan E, out chan<- M, first M, convert func(E) M) {
	var none M
	select {
	case out <- first:
	case <-ctx.Done():
		drain(src)
		return
	}
	for {
		select {
		case ev, ok := <-src:
			if !ok {
				return
			}
			m := convert(ev)
			if m == none {
				continue
			}
			select {
			case out <- m:
			case <-ctx.Done():
				drain(src)
				return
			}
		case <-ctx.Done():
			drain(src)
			return
		}
	}
}

func drain[E any](src <-chan E) {
	for range src {
	}
}

// attemptEventModel converts an engine event. A SOURCES event primes the
// operation's source re-authorisation cache with the verdicts the engine
// reached when it delivered the event, under their access stamp.
func attemptEventModel(ctx context.Context, ev chat.AttemptEvent) *model.AttemptEvent {
	m := &model.AttemptEvent{Kind: model.AttemptEventKind(ev.Kind), AttemptID: ev.AttemptID, Seq: ev.Seq}
	switch ev.Kind {
	case chat.EventStarted:
		q, h := ev.StandaloneQuestion, ev.RequiresHistory
		m.StandaloneQuestion, m.RequiresHistory = &q, &h
	case chat.EventSources:
		if sa := sourceAuthFrom(ctx); sa != nil {
			sa.prime(ev.Sources, ev.SourcesStamp)
		}
		m.Sources = make([]*ent.Source, 0, len(ev.Sources))
		for _, v := range ev.Sources {
			if v.Source != nil {
				m.Sources = append(m.Sources, v.Source)
			}
		}
	case chat.EventDelta:
		t := ev.Text
		m.Text = &t
	case chat.EventCompleted:
		m.Attempt = ev.Attempt
	case chat.EventFailed:
		m.Attempt = ev.Attempt
		code, msg := string(ev.FailureCode), ev.FailureMessage
		m.FailureCode, m.FailureMessage = &code, &msg
	}
	return m
}

// conversationEventModel converts a feed conversation event.
func conversationEventModel(ev feed.ConversationEvent) *model.ConversationEvent {
	m := &model.ConversationEvent{
		Kind:           model.ConversationEventKind(ev.Kind),
		ConversationID: ev.ConversationID,
		MessageID:      ev.MessageID,
		AttemptID:      ev.AttemptID,
		At:             ev.At,
		AttemptStatus:  optionalEnum[attempt.Status](ev.AttemptStatus),
	}
	if ev.AttachmentID != nil {
		s := attachment.Status(ev.AttachmentStatus)
		m.AttachmentID, m.AttachmentStatus = ev.AttachmentID, &s
	}
	m.ChangedAttemptIds, m.ChangedAttemptCount = changedAttempts(conversationSourcesChanged(ev), ev.ChangedAttemptIDs, ev.ChangedAttempts)
	return m
}

// optionalEnum is the enum value s, nil when s is empty.
func optionalEnum[T ~string](s string) *T {
	if s == "" {
		return nil
	}
	v := T(s)
	return &v
}

// mayReadAttachment re-authorises an ATTACHMENT_UPDATED event of a
// conversation stream as a fresh query would: the subscriber sees it only
// when the attachment is visible to them under its privacy policy (its
// owner); other readers of the conversation, and any read that fails,
// see nothing.
func (r *Resolver) mayReadAttachment(ctx context.Context, id *uuid.UUID) bool {
	if id == nil {
		return false
	}
	ok, err := r.client.Attachment.Query().Where(attachment.ID(*id)).Exist(ctx)
	return err == nil && ok
}

// eventConversation loads the conversation of a conversation event (see
// eventRow); after CONVERSATION_DELETED there is nothing left to show.
func (r *Resolver) eventConversation(ctx context.Context, ev *model.ConversationEvent) (*ent.Conversation, error) {
	if ev.Kind == model.ConversationEventKindConversationDeleted {
		return nil, nil
	}
	return loadEventConversation(ctx, r.client, ev.ConversationID)
}

// eventMessage loads the message of a MESSAGE_CREATED event (see
// eventRow).
func (r *Resolver) eventMessage(ctx context.Context, ev *model.ConversationEvent) (*ent.Message, error) {
	if ev.MessageID == nil {
		return nil, nil
	}
	q, err := r.client.Message.Query().Where(message.ID(*ev.MessageID)).CollectFields(ctx)
	if err != nil {
		return nil, err
	}
	return eventRow(q.Only(ctx))
}

// eventAttempt loads the attempt of an ATTEMPT_UPDATED event (see
// eventRow).
func (r *Resolver) eventAttempt(ctx context.Context, ev *model.ConversationEvent) (*ent.Attempt, error) {
	return loadEventAttempt(ctx, r.client, ev.AttemptID)
}

// eventRow is the answer of every field of conversationEvents and
// viewerEvents that shows a row the event names: the row as the viewer may
// read it when the event is delivered, or null, with no error, once it is
// gone or hidden (docs/API.md, "null once the conversation is deleted").
// Other errors pass through.
func eventRow[T any](row *T, err error) (*T, error) {
	if store.Classify(err) == store.ClassNotFound {
		return nil, nil
	}
	return row, err
}

// loadEventConversation loads the conversation of an event, with field
// collection (eventRow).
func loadEventConversation(ctx context.Context, client *ent.Client, id uuid.UUID) (*ent.Conversation, error) {
	q, err := client.Conversation.Query().Where(conversation.ID(id)).CollectFields(ctx)
	if err != nil {
		return nil, err
	}
	return eventRow(q.Only(ctx))
}

// loadEventAttempt loads the attempt of an event, if it names one, with field
// collection (eventRow).
func loadEventAttempt(ctx context.Context, client *ent.Client, id *uuid.UUID) (*ent.Attempt, error) {
	if id == nil {
		return nil, nil
	}
	q, err := client.Attempt.Query().Where(attempt.ID(*id)).CollectFields(ctx)
	if err != nil {
		return nil, err
	}
	return eventRow(q.Only(ctx))
}
