package history

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/sqlvalue"
)

// Aliases of the attempt columns that joinWindowAttempts selects.
const (
	windowAttempts         = "window_attempts"
	colWindowUserMessageID = "window_user_message_id"
	colWindowStatus        = "window_attempt_status"
	colWindowRefused       = "window_attempt_refused"
)

// joinWindowAttempts joins each answer's attempt into the window read, so
// that the window costs one statement, not a second one to load the
// attempts. It reads only attempts that an answer the viewer may read
// (privacy-filtered in the same statement) points to, and only those of
// the answer's own tenant and conversation: the join does not trust
// messages.attempt_id alone, so a wrong link can never pair rows of two
// tenants, or of two conversations (an answer whose attempt is not found
// pairs with no question).
//
// On SQLite the columns are never NULL (COALESCE to an empty value, which
// attachWindowAttempts reads as "no attempt"): its driver tells a
// column's type from the first row's value, and has none for a NULL.
func joinWindowAttempts(s *sql.Selector) {
	a := sql.Table(attempt.Table).As(windowAttempts)
	s.LeftJoin(a).OnP(sql.And(
		sql.ColumnsEQ(s.C(message.FieldAttemptID), a.C(attempt.FieldID)),
		sql.ColumnsEQ(s.C(message.FieldTenantID), a.C(attempt.FieldTenantID)),
		sql.ColumnsEQ(s.C(message.FieldConversationID), a.C(attempt.FieldConversationID)),
	))
	if s.Dialect() == dialect.SQLite {
		s.AppendSelectExprAs(sql.Expr("COALESCE("+a.C(attempt.FieldUserMessageID)+", '')"), colWindowUserMessageID)
		s.AppendSelectExprAs(sql.Expr("COALESCE("+a.C(attempt.FieldStatus)+", '')"), colWindowStatus)
		s.AppendSelectExprAs(sql.Expr("COALESCE("+a.C(attempt.FieldRefused)+", 0)"), colWindowRefused)
		return
	}
	s.AppendSelectAs(a.C(attempt.FieldUserMessageID), colWindowUserMessageID)
	s.AppendSelectAs(a.C(attempt.FieldStatus), colWindowStatus)
	s.AppendSelectAs(a.C(attempt.FieldRefused), colWindowRefused)
}

// readWindow runs q, a window read, with each answer's attempt and the
// sources' flags joined (joinWindowAttempts, selectWindowSources) and the
// attempts attached (attachWindowAttempts).
func readWindow(ctx context.Context, q *ent.MessageSelect) ([]*ent.Message, error) {
	msgs, err := q.Modify(joinWindowAttempts, selectWindowSources(ctx)).All(ctx)
	if err != nil {
		return nil, err
	}
	return msgs, attachWindowAttempts(msgs)
}

// attachWindowAttempts sets, on every message of msgs that has an
// attempt, the attempt's user message, status and refusal, as
// joinWindowAttempts read them.
func attachWindowAttempts(msgs []*ent.Message) error {
	for _, m := range msgs {
		if m.AttemptID == nil {
			continue
		}
		uid, err := m.Value(colWindowUserMessageID)
		if err != nil {
			return err
		}
		if uid == nil || sqlvalue.Text(uid) == "" {
			continue // no such attempt: the answer pairs with no question
		}
		a := &ent.Attempt{ID: *m.AttemptID}
		if a.UserMessageID, err = sqlvalue.UUID(uid); err != nil {
			return fmt.Errorf("window: attempt %s: user message: %w", a.ID, err)
		}
		status, err := m.Value(colWindowStatus)
		if err != nil {
			return err
		}
		a.Status = attempt.Status(sqlvalue.Text(status))
		refused, err := m.Value(colWindowRefused)
		if err != nil {
			return err
		}
		a.Refused = sqlvalue.Bool(refused)
		m.Edges.Attempt = a
	}
	return nil
}
