package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/feed"
)

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
	m.ChangedAttemptIds, m.ChangedAttemptCount = changedAttempts(ev.Kind == feed.ConversationSourcesChanged, ev.ChangedAttemptIDs, ev.ChangedAttempts)
	return m
}

// viewerEventModel converts a feed viewer event.
func viewerEventModel(ev feed.ViewerEvent) *model.ViewerEvent {
	m := &model.ViewerEvent{
		Kind:             model.ViewerEventKind(ev.Kind),
		ConversationID:   ev.ConversationID,
		AttemptID:        ev.AttemptID,
		MessageID:        ev.MessageID,
		AttachmentID:     ev.AttachmentID,
		At:               ev.At,
		AttachmentStatus: optionalEnum[attachment.Status](ev.AttachmentStatus),
		AttemptStatus:    optionalEnum[attempt.Status](ev.AttemptStatus),
	}
	m.ChangedAttemptIds, m.ChangedAttemptCount = changedAttempts(ev.Kind == feed.ViewerSourcesChanged, ev.ChangedAttemptIDs, ev.ChangedAttempts)
	return m
}

// changedAttempts is the changedAttemptIds and changedAttemptCount of a
// SOURCES_CHANGED event (docs/API.md, "Document-change events"); both are
// null for other kinds.
func changedAttempts(sourcesChanged bool, ids []uuid.UUID, count int) ([]uuid.UUID, *int) {
	if !sourcesChanged {
		return nil, nil
	}
	if ids == nil {
		ids = []uuid.UUID{}
	}
	return ids, &count
}

// optionalEnum is the enum value s, nil when s is empty.
func optionalEnum[T ~string](s string) *T {
	if s == "" {
		return nil
	}
	v := T(s)
	return &v
}
