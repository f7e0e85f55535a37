package readaudit

import (
	"sync"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
)

// readLog is one audit scope: what an admin or support agent read and
// what is written.
type readLog struct {
	mu sync.Mutex
	// w writes the events: the client (and logger) of the interceptor
	// that noted the reads.
	w writer
	// known maps a conversation read (and not yet audited) to its owner.
	known map[uuid.UUID]string
	// rows holds, per table, rows read whose conversation or owner the
	// query did not load (a GraphQL selection loads only the fields asked
	// for); sources and feedback are held by their attempt.
	rows map[string]map[uuid.UUID]bool
	// written are the conversations already audited in this scope.
	written map[uuid.UUID]bool
}

func newReadLog() *readLog {
	return &readLog{known: map[uuid.UUID]string{}, rows: map[string]map[uuid.UUID]bool{}, written: map[uuid.UUID]bool{}}
}

// note records result's rows that are not self's, to be written by w; it
// reports whether it recorded any.
func (l *readLog) note(w writer, self string, result ent.Value) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	known := func(conv uuid.UUID, owner string) {
		if owner != self {
			l.known[conv] = owner
			n++
		}
	}
	row := func(table string, id uuid.UUID) {
		if l.rows[table] == nil {
			l.rows[table] = map[uuid.UUID]bool{}
		}
		l.rows[table][id] = true
		n++
	}
	// owned is a row beneath conversation conv, of owner: known when the
	// query loaded both.
	owned := func(table string, id, conv uuid.UUID, owner string) {
		if owner == "" || conv == uuid.Nil {
			row(table, id)
		} else {
			known(conv, owner)
		}
	}
	// attached is a row held by its attempt: recorded by the attempt when
	// the query loaded it.
	attached := func(table string, id, attemptID uuid.UUID, owner string) {
		switch {
		case owner == self:
		case attemptID != uuid.Nil:
			row(attempt.Table, attemptID)
		default:
			row(table, id)
		}
	}
	switch rows := result.(type) {
	case []*ent.Conversation:
		for _, r := range rows {
			if r.UserID == "" {
				row(conversation.Table, r.ID)
			} else {
				known(r.ID, r.UserID)
			}
		}
	case []*ent.Message:
		for _, r := range rows {
			owned(message.Table, r.ID, r.ConversationID, r.OwnerID)
		}
	case []*ent.Attempt:
		for _, r := range rows {
			owned(attempt.Table, r.ID, r.ConversationID, r.OwnerID)
		}
	case []*ent.Source:
		for _, r := range rows {
			attached(source.Table, r.ID, r.AttemptID, r.OwnerID)
		}
	case []*ent.Feedback:
		for _, r := range rows {
			attached(feedback.Table, r.ID, r.AttemptID, r.OwnerID)
		}
	}
	if n > 0 {
		l.w = w
	}
	return n > 0
}

// take returns and clears what was recorded since the last flush, and the
// writer of its events.
func (l *readLog) take() (w writer, known map[uuid.UUID]string, rows map[string]map[uuid.UUID]bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, known, rows = l.w, l.known, l.rows
	l.known, l.rows = map[uuid.UUID]string{}, map[string]map[uuid.UUID]bool{}
	return w, known, rows
}

// fresh marks the conversations of known not yet audited in this scope as
// audited, and returns them.
func (l *readLog) fresh(known map[uuid.UUID]string) []uuid.UUID {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []uuid.UUID
	for id := range known {
		if !l.written[id] {
			l.written[id] = true
			out = append(out, id)
		}
	}
	return out
}
