package chat

import (
	"context"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/domain"
)

// SubscribeAttempt streams an attempt's events to a client that has already
// applied the answer text up to afterSeq (0 for a new client). It delivers
// exactly the missed text, from the broker's backlog or the attempt's
// checkpoint, then the live tail; a finished attempt is replayed from the
// database. The channel closes after COMPLETED or FAILED, or when ctx is
// done. A slow client never slows the answer: if it falls behind, the
// stream resynchronises transparently.
func (e *Engine) SubscribeAttempt(ctx context.Context, attemptID uuid.UUID, afterSeq int) (<-chan AttemptEvent, error) {
	if afterSeq < 0 {
		return nil, domain.Errorf(domain.CodeBadUserInput, "afterSeq must not be negative")
	}
	att, err := e.client.Attempt.Get(ctx, attemptID)
	if err != nil {
		return nil, storageError(err, "attempt")
	}
	if _, err := e.loadConversation(ctx, att.ConversationID); err != nil {
		return nil, domain.NotFound("attempt")
	}
	out := make(chan AttemptEvent, 16)
	s := &attemptStream{e: e, ctx: ctx, id: att.ID, out: out, sent: afterSeq}
	sub, att, err := s.subscribe()
	if err != nil {
		return nil, err
	}
	go s.pump(sub, att)
	return out, nil
}

// attemptStream is one subscriber's cursor over an attempt's answer text.
type attemptStream struct {
	e           *Engine
	ctx         context.Context
	id          uuid.UUID
	out         chan AttemptEvent
	last        *ent.Attempt // the attempt as last read
	sent        int          // code points of answer text delivered
	gap         bool
	startedSent bool
	sourcesSent bool
}

// subscribe subscribes before reading the attempt, so nothing published in
// between is lost.
func (s *attemptStream) subscribe() (*broker.Subscription, *ent.Attempt, error) {
	sub, err := s.e.broker.Subscribe(s.ctx, attemptTopic(s.id))
	if err != nil {
		return nil, nil, domain.Wrap(err, domain.CodeUnavailable, "stream unavailable")
	}
	att, err := s.e.client.Attempt.Get(s.ctx, s.id)
	if err != nil {
		sub.Close()
		return nil, nil, storageError(err, "attempt")
	}
	s.last = att
	return sub, att, nil
}

func (s *attemptStream) send(ev AttemptEvent) bool {
	ev.AttemptID = s.id
	select {
	case s.out <- ev:
		return true
	case <-s.ctx.Done():
		return false
	}
}

func (s *attemptStream) pump(sub *broker.Subscription, att *ent.Attempt) {
	defer close(s.out)
	for {
		done, ok := s.follow(sub, att)
		sub.Close()
		if done || !ok || s.ctx.Err() != nil {
			return
		}
		// Lagged or the topic went away: resubscribe and resync.
		var err error
		if sub, att, err = s.subscribe(); err != nil {
			return
		}
	}
}

// follow serves one subscription. It returns done when the stream has
// ended (terminal event sent), ok=false when the client is gone.
func (s *attemptStream) follow(sub *broker.Subscription, att *ent.Attempt) (done, ok bool) {
	if att.Status != attempt.StatusPENDING {
		return true, s.replayFinished(att)
	}
	backlog, complete := sub.Backlog()
	if !complete {
		if !s.resyncFromCheckpoint(att) {
			return false, false
		}
	}
	for _, ev := range backlog {
		if done, ok := s.deliver(ev); done || !ok {
			return done, ok
		}
	}
	for {
		select {
		case ev, open := <-sub.C():
			if !open {
				return s.afterEnd(sub)
			}
			if done, ok := s.deliver(ev); done || !ok {
				return done, ok
			}
		case <-s.ctx.Done():
			return false, false
		}
	}
}

// afterEnd decides what to do when a subscription ended early.
func (s *attemptStream) afterEnd(sub *broker.Subscription) (done, ok bool) {
	if errors.Is(sub.Err(), broker.ErrLagged) {
		return false, true
	}
	if s.ctx.Err() != nil {
		return false, false
	}
	att, err := s.e.client.Attempt.Get(s.ctx, s.id)
	if err != nil || att.Status == attempt.StatusPENDING {
		// The broker closed or forgot a live topic: resubscribe.
		return false, err == nil
	}
	return true, s.replayFinished(att)
}

// resyncFromCheckpoint serves the text saved on the attempt when the
// broker no longer holds the beginning of the stream.
func (s *attemptStream) resyncFromCheckpoint(att *ent.Attempt) bool {
	if att.StandaloneQuestion != nil && !s.startedSent {
		s.startedSent = true
		if !s.send(AttemptEvent{Kind: EventStarted, StandaloneQuestion: *att.StandaloneQuestion, RequiresHistory: att.RequiresHistory}) {
			return false
		}
	}
	if att.CheckpointSeq > s.sent {
		text := sliceRunes(att.Answer, s.sent, att.CheckpointSeq)
		s.sent = att.CheckpointSeq
		return s.send(AttemptEvent{Kind: EventDelta, Seq: s.sent, Text: text})
	}
	return true
}

// deliver forwards one broker event, deduplicating by text offset.
func (s *attemptStream) deliver(ev broker.Event) (done, ok bool) {
	var p attemptPayload
	if len(ev.Data) > 0 {
		if err := json.Unmarshal(ev.Data, &p); err != nil {
			return false, true
		}
	}
	switch AttemptEventKind(ev.Kind) {
	case EventStarted:
		if s.startedSent {
			return false, true
		}
		s.startedSent = true
		return false, s.send(AttemptEvent{Kind: EventStarted, StandaloneQuestion: p.Question, RequiresHistory: p.RequiresHistory})
	case EventSources:
		if s.sourcesSent {
			return false, true
		}
		s.sourcesSent = true
		views := make([]SourceView, len(p.Sources))
		for i, sp := range p.Sources {
			views[i] = SourceView{Source: sp.source(s.id), Available: true}
		}
		return false, s.send(AttemptEvent{Kind: EventSources, Sources: views, Seq: s.sent})
	case EventDelta:
		end := ev.Seq
		start := end - utf8.RuneCountInString(p.Text)
		switch {
		case end <= s.sent:
			return false, true
		case start > s.sent:
			s.gap = true // filled from the final answer at the end
			return false, true
		case s.gap:
			return false, true
		}
		text := sliceRunes(p.Text, s.sent-start, end-start)
		s.sent = end
		return false, s.send(AttemptEvent{Kind: EventDelta, Seq: end, Text: text})
	case EventCompleted, EventFailed:
		att, err := s.e.client.Attempt.Get(s.ctx, s.id)
		switch {
		case err == nil && att.Status != attempt.StatusPENDING:
			return true, s.finish(att)
		case err != nil && s.ctx.Err() != nil:
			return true, false // the client left
		case ent.IsNotFound(err):
			// The conversation was deleted while the answer ran (which
			// cancels it): the stream still ends with its terminal event,
			// but carries no row, which nobody may read any more.
			return true, s.send(AttemptEvent{Kind: AttemptEventKind(ev.Kind), Seq: s.sent,
				FailureCode: domain.FailureCode(p.Code), FailureMessage: p.Message})
		}
		// The outcome is not readable yet: the database is down, or the
		// FAILED write failed and the reaper will fix the row. The event
		// itself carries the outcome.
		return true, s.finish(s.outcome(AttemptEventKind(ev.Kind), p, att))
	}
	return false, true
}

// outcome is the finished attempt a terminal event describes, built from
// the last row read (still PENDING, or nil) and the event's code and
// message, for when the database cannot tell yet.
func (s *attemptStream) outcome(kind AttemptEventKind, p attemptPayload, read *ent.Attempt) *ent.Attempt {
	var a ent.Attempt
	switch {
	case read != nil:
		a = *read
	case s.last != nil:
		a = *s.last
	default:
		a = ent.Attempt{ID: s.id}
	}
	if kind == EventCompleted {
		a.Status = attempt.StatusCOMPLETED
		return &a
	}
	a.Status = attempt.StatusFAILED
	code, msg := p.Code, p.Message
	a.FailureCode, a.FailureMessage = &code, &msg
	return &a
}

// replayFinished serves a finished attempt from the database.
func (s *attemptStream) replayFinished(att *ent.Attempt) bool {
	if !s.startedSent && att.StandaloneQuestion != nil {
		s.startedSent = true
		if !s.send(AttemptEvent{Kind: EventStarted, StandaloneQuestion: *att.StandaloneQuestion, RequiresHistory: att.RequiresHistory}) {
			return false
		}
	}
	if !s.sourcesSent && att.Status == attempt.StatusCOMPLETED {
		s.sourcesSent = true
		views, err := s.e.Sources(s.ctx, att.ID)
		if err != nil {
			return false
		}
		if !s.send(AttemptEvent{Kind: EventSources, Sources: views, Seq: s.sent}) {
			return false
		}
	}
	return s.finish(att)
}

// finish sends whatever answer text the client still lacks, then the
// terminal event.
func (s *attemptStream) finish(att *ent.Attempt) bool {
	total := utf8.RuneCountInString(att.Answer)
	if total > s.sent {
		text := sliceRunes(att.Answer, s.sent, total)
		s.sent = total
		if !s.send(AttemptEvent{Kind: EventDelta, Seq: total, Text: text}) {
			return false
		}
	}
	if att.Status == attempt.StatusCOMPLETED {
		return s.send(AttemptEvent{Kind: EventCompleted, Seq: s.sent, Attempt: att})
	}
	ev := AttemptEvent{Kind: EventFailed, Seq: s.sent, Attempt: att}
	if att.FailureCode != nil {
		ev.FailureCode = domain.FailureCode(*att.FailureCode)
	}
	if att.FailureMessage != nil {
		ev.FailureMessage = *att.FailureMessage
	}
	return s.send(ev)
}

// sliceRunes returns the code points [from, to) of s, clamped to s.
func sliceRunes(s string, from, to int) string {
	if from < 0 {
		from = 0
	}
	if to <= from {
		return ""
	}
	i, start := 0, -1
	for pos := range s {
		if i == from {
			start = pos
		}
		if i == to {
			return s[start:pos]
		}
		i++
	}
	if start < 0 {
		return ""
	}
	return s[start:]
}

// SubscribeConversation streams change notifications of a conversation the
// viewer may see, so that a second tab stays in sync. Events carry ids;
// clients refetch. The channel closes when ctx is done, and after
// CONVERSATION_DELETED. It subscribes before reading the conversation, so
// that a deletion in between still reaches the stream.
func (e *Engine) SubscribeConversation(ctx context.Context, conversationID uuid.UUID) (<-chan ConversationEvent, error) {
	sub, err := e.broker.Subscribe(ctx, conversationTopic(conversationID))
	if err != nil {
		return nil, domain.Wrap(err, domain.CodeUnavailable, "stream unavailable")
	}
	if _, err := e.loadConversation(ctx, conversationID); err != nil {
		sub.Close()
		return nil, err
	}
	out := make(chan ConversationEvent, 16)
	go func() {
		defer close(out)
		for {
			for ev := range sub.C() {
				var p conversationPayload
				if json.Unmarshal(ev.Data, &p) != nil {
					continue
				}
				ce := ConversationEvent{Kind: ConversationEventKind(ev.Kind), ConversationID: conversationID,
					MessageID: p.Message, AttemptID: p.Attempt, AttemptStatus: p.Status, At: p.At}
				select {
				case out <- ce:
				case <-ctx.Done():
					sub.Close()
					return
				}
				if ce.Kind == ConversationDeleted {
					// Nothing of the conversation is visible any more:
					// the stream ends after telling so.
					sub.Close()
					return
				}
			}
			if ctx.Err() != nil || errors.Is(sub.Err(), broker.ErrClosed) {
				return
			}
			// Lagged or forgotten while idle: notifications only, so
			// resubscribing is enough.
			if sub, err = e.broker.Subscribe(ctx, conversationTopic(conversationID)); err != nil {
				return
			}
		}
	}()
	return out, nil
}
