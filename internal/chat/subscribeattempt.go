package chat

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/sourceauth"
	"github.com/ragchat/ragchat/internal/store"
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
	// A stream outlives a support grant's revoke: grants open no streams.
	ctx = authz.WithoutGrants(ctx)
	// Subscribe first, then read the attempt once: nothing published in
	// between is lost, and that one read also authorises the stream. The
	// privacy rules show an attempt only to those who may see its
	// conversation, and never one of a DELETED conversation
	// (internal/authz), so no separate conversation read is needed
	// (docs/ENGINE.md, "Statements per ask").
	out := make(chan AttemptEvent, 16)
	s := &attemptStream{e: e, ctx: ctx, id: attemptID, out: out, sent: afterSeq}
	sub, att, err := s.subscribe()
	if err != nil {
		return nil, err
	}
	go s.pump(sub, att)
	return out, nil
}

// attemptStream is one subscriber's cursor over an attempt's answer text
// (docs/ENGINE.md, "Streams and resume").
type attemptStream struct {
	e           *Engine
	ctx         context.Context
	id          uuid.UUID
	out         chan AttemptEvent
	last        *ent.Attempt // the attempt as last read
	sent        int          // code points of answer text delivered
	startedSent bool
	sourcesSent bool

	// held is the live text received after a gap (a DELTA that starts
	// after sent), kept until the checkpoint covers the gap; nil when
	// there is no gap.
	held *heldText
	// lastRead is when the attempt was last re-read to fill a gap: at most
	// once per CheckpointInterval while the gap lasts.
	lastRead time.Time
}

// heldText is contiguous live answer text, code points [start, end).
type heldText struct {
	start, end int
	text       strings.Builder
}

// hold keeps a DELTA that starts after the cursor: it extends the held
// text when it continues it, and otherwise replaces it (another gap: only
// the newest contiguous text is useful once the checkpoint catches up).
func (s *attemptStream) hold(start, end int, text string) {
	h := s.held
	switch {
	case h != nil && start >= h.start && end <= h.end:
		return
	case h != nil && start >= h.start && start <= h.end:
		h.text.WriteString(sliceRunes(text, h.end-start, end-start))
		h.end = end
	default:
		h = &heldText{start: start, end: end}
		h.text.WriteString(text)
		s.held = h
	}
}

// releaseHeld sends the held text beyond the cursor once the cursor has
// reached its start, which closes the gap.
func (s *attemptStream) releaseHeld() bool {
	h := s.held
	if h == nil || h.start > s.sent {
		return true // no gap, or not reached yet
	}
	s.held = nil
	if h.end <= s.sent {
		return true
	}
	text := sliceRunes(h.text.String(), s.sent-h.start, h.end-h.start)
	s.sent = h.end
	return s.send(AttemptEvent{Kind: EventDelta, Seq: s.sent, Text: text})
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
		return nil, nil, store.DomainError(err, "attempt")
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
		if sub, att, err = s.resubscribe(); err != nil {
			return
		}
	}
}

// resubscribe subscribes again after a subscription ended early. While the
// database is unavailable (an outage, a failover) it keeps trying, with
// backoff, until the client leaves: the stream resumes from the checkpoint
// once the database is back, rather than ending without its terminal
// event.
func (s *attemptStream) resubscribe() (*broker.Subscription, *ent.Attempt, error) {
	wait := 50 * time.Millisecond
	for {
		sub, att, err := s.subscribe()
		if err == nil || domain.ErrorCode(err) != domain.CodeUnavailable || errors.Is(err, broker.ErrClosed) {
			return sub, att, err
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-s.ctx.Done():
			t.Stop()
			return nil, nil, s.ctx.Err()
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// follow serves one subscription. It returns done when the stream has
// ended (terminal event sent), ok=false when the client is gone.
//
// Besides the broker's events it watches two timers. While a gap lasts,
// the gap timer re-reads the checkpoint (at most once per
// CheckpointInterval). And when nothing arrives for LeaseDuration, the
// idle timer re-reads the attempt: a finished attempt whose terminal event
// was lost, or one the reaper failed after its instance died, ends the
// stream, so that no subscription waits for ever.
func (s *attemptStream) follow(sub *broker.Subscription, att *ent.Attempt) (done, ok bool) {
	if att.Status != attempt.StatusPENDING {
		return true, s.replayFinished(att)
	}
	backlog, complete := sub.Backlog()
	// An incomplete backlog lost the stream's beginning; an empty one on
	// an attempt that has progressed never saw it (another instance runs
	// the attempt): serve the checkpoint first.
	behind := att.CheckpointSeq > s.sent || (att.StandaloneQuestion != nil && !s.startedSent)
	if !complete || (len(backlog) == 0 && behind) {
		if !s.catchUp(att) {
			return false, false
		}
	}
	for _, ev := range backlog {
		if done, ok := s.deliver(ev); done || !ok {
			return done, ok
		}
	}
	idle := time.NewTimer(s.e.cfg.LeaseDuration)
	defer idle.Stop()
	gap := time.NewTimer(0)
	gap.Stop()
	defer gap.Stop()
	for {
		if s.held != nil {
			gap.Reset(time.Until(s.lastRead.Add(s.e.cfg.CheckpointInterval)))
		} else {
			gap.Stop()
		}
		select {
		case ev, open := <-sub.C():
			if !open {
				return s.afterEnd(sub)
			}
			idle.Reset(s.e.cfg.LeaseDuration)
			if done, ok := s.deliver(ev); done || !ok {
				return done, ok
			}
		case <-gap.C:
			if done, ok := s.reread(); done || !ok {
				return done, ok
			}
		case <-idle.C:
			if done, ok := s.reread(); done || !ok {
				return done, ok
			}
			idle.Reset(s.e.cfg.LeaseDuration)
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
	switch {
	case err != nil && s.ctx.Err() != nil:
		return false, false
	case err != nil && store.IsTransient(err):
		// The database is unavailable too: resubscribe, which waits for
		// it, and resync from the checkpoint.
		return false, true
	case err != nil:
		return false, false
	case att.Status == attempt.StatusPENDING:
		// The broker closed or forgot a live topic: resubscribe.
		return false, true
	}
	return true, s.replayFinished(att)
}

// reread reads the attempt again, for a gap or after a silence: a finished
// attempt ends the stream; a running one serves its checkpoint beyond the
// cursor. A read that fails changes nothing (the next timer tries again).
func (s *attemptStream) reread() (done, ok bool) {
	s.lastRead = time.Now()
	att, err := s.e.client.Attempt.Get(s.ctx, s.id)
	switch {
	case err != nil && s.ctx.Err() != nil:
		return false, false
	case ent.IsNotFound(err):
		// The conversation was deleted (which cancels the answer) and its
		// terminal event was lost: end as that event would have.
		return true, s.send(AttemptEvent{Kind: EventFailed, Seq: s.sent,
			FailureCode: domain.FailureCancelled, FailureMessage: errDeleted.Error()})
	case err != nil:
		return false, true
	case att.Status != attempt.StatusPENDING:
		return true, s.replayFinished(att)
	}
	s.last = att
	return false, s.catchUp(att)
}

// catchUp serves a running attempt from its row: STARTED if not sent, the
// checkpointed text beyond the cursor, then the held live text once the
// checkpoint reaches it, which closes the gap.
func (s *attemptStream) catchUp(att *ent.Attempt) bool {
	if att.StandaloneQuestion != nil && !s.startedSent {
		s.startedSent = true
		if !s.send(AttemptEvent{Kind: EventStarted, StandaloneQuestion: *att.StandaloneQuestion, RequiresHistory: att.RequiresHistory}) {
			return false
		}
	}
	if att.CheckpointSeq > s.sent {
		text := sliceRunes(att.Answer, s.sent, att.CheckpointSeq)
		s.sent = att.CheckpointSeq
		if !s.send(AttemptEvent{Kind: EventDelta, Seq: s.sent, Text: text}) {
			return false
		}
	}
	return s.releaseHeld()
}

// deliver forwards one broker event, deduplicating by text offset.
func (s *attemptStream) deliver(ev broker.Event) (done, ok bool) {
	var p attemptPayload
	if len(ev.Data) > 0 {
		if err := decodeAttemptPayload(ev.Data, &p); err != nil {
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
		srcs := make([]*ent.Source, len(p.Sources))
		for i, sp := range p.Sources {
			srcs[i] = sp.source(s.id)
		}
		// The payload says what the asker could read when the evidence was
		// retrieved; this subscriber gets what it may read now.
		stamp := s.e.access.ViewerStamp(s.ctx)
		views, err := s.e.liveSources(s.ctx, s.id, srcs, stamp)
		if err != nil {
			// Not re-authorised, so not sent: a finished attempt's replay
			// sends the saved sources instead.
			return false, s.ctx.Err() == nil
		}
		s.sourcesSent = true
		return false, s.send(AttemptEvent{Kind: EventSources, Sources: views, SourcesStamp: stamp, Seq: s.sent})
	case EventDelta:
		end := ev.Seq
		start := end - utf8.RuneCountInString(p.Text)
		switch {
		case end <= s.sent:
			return false, true
		case start > s.sent:
			// A gap: the text between the cursor and this delta was
			// published before this subscription (on another instance)
			// or lost. Hold the live text and fill the gap from the
			// checkpoint, re-read now unless it was read within the
			// last CheckpointInterval (then the gap timer will).
			s.hold(start, end, p.Text)
			if time.Since(s.lastRead) < s.e.cfg.CheckpointInterval {
				return false, true
			}
			return s.reread()
		}
		text := sliceRunes(p.Text, s.sent-start, end-start)
		s.sent = end
		if !s.send(AttemptEvent{Kind: EventDelta, Seq: end, Text: text}) {
			return false, false
		}
		return false, s.releaseHeld()
	case EventCompleted, EventFailed:
		if ev.Kind == string(EventCompleted) {
			if att, ok := s.e.outcomes.get(s.id, time.Now()); ok {
				// This instance completed the attempt: the row it
				// wrote, for a subscriber authorised on subscribe.
				return true, s.replayFinished(att)
			}
		}
		att, err := s.e.client.Attempt.Get(s.ctx, s.id)
		switch {
		case err == nil && att.Status != attempt.StatusPENDING:
			return true, s.replayFinished(att)
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
		stamp := s.e.access.ViewerStamp(s.ctx)
		views, err := sourceauth.OfAttempt(s.ctx, s.e.client, att.ID)
		if err != nil {
			return false
		}
		if !s.send(AttemptEvent{Kind: EventSources, Sources: views, SourcesStamp: stamp, Seq: s.sent}) {
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
