package readaudit

import (
	"context"
	"log/slog"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/viewer"
)

// writer writes audit events through the client of an interceptor, and
// logs its failures.
type writer struct {
	client *ent.Client
	log    *slog.Logger
}

// flush resolves what was recorded to conversations and writes one event
// for each conversation not yet audited in this scope: at most one lookup
// and one insert. Its own lookup is not audited and survives the request's
// cancellation.
func (l *readLog) flush(ctx context.Context) {
	v := viewer.FromContext(ctx)
	if v == nil {
		return
	}
	w, known, rows := l.take()
	if len(known)+len(rows) == 0 {
		return
	}
	qctx := Exempt(authz.IncludeDeleted(context.WithoutCancel(ctx)))
	if err := resolveRows(qctx, w.client, v.UserID, rows, known); err != nil {
		w.log.ErrorContext(ctx, "admin read not audited: lookup failed", "err", err)
	}
	fresh := l.fresh(known)
	if len(fresh) == 0 {
		return
	}
	if !v.IsAdmin() {
		w.supportReads(ctx, qctx, v.UserID, fresh, known)
		return
	}
	bulk := make([]*ent.AuditEventCreate, len(fresh))
	for i, id := range fresh {
		bulk[i] = w.client.AuditEvent.Create().SetActor(v.UserID).SetAction(ActionAdminRead).
			SetTargetType("Conversation").SetTargetID(id.String()).
			SetMetadata(map[string]string{"owner": known[id]})
	}
	if err := w.client.AuditEvent.CreateBulk(bulk...).Exec(qctx); err != nil {
		w.log.ErrorContext(ctx, "admin read not audited", "conversations", len(fresh), "err", err)
	}
}

// resolveRows finds, in one query, the conversations the recorded rows
// belong to, and adds those of users other than self to known.
func resolveRows(ctx context.Context, c *ent.Client, self string, rows map[string]map[uuid.UUID]bool, known map[uuid.UUID]string) error {
	if len(rows) == 0 {
		return nil
	}
	ids := func(table string) []uuid.UUID {
		out := make([]uuid.UUID, 0, len(rows[table]))
		for id := range rows[table] {
			out = append(out, id)
		}
		return out
	}
	var match []predicate.Conversation
	if len(rows[conversation.Table]) > 0 {
		match = append(match, conversation.IDIn(ids(conversation.Table)...))
	}
	if len(rows[message.Table]) > 0 {
		match = append(match, conversation.HasMessagesWith(message.IDIn(ids(message.Table)...)))
	}
	var attempts []predicate.Attempt
	if len(rows[attempt.Table]) > 0 {
		attempts = append(attempts, attempt.IDIn(ids(attempt.Table)...))
	}
	if len(rows[source.Table]) > 0 {
		attempts = append(attempts, attempt.HasSourcesWith(source.IDIn(ids(source.Table)...)))
	}
	if len(rows[feedback.Table]) > 0 {
		attempts = append(attempts, attempt.HasFeedbackWith(feedback.IDIn(ids(feedback.Table)...)))
	}
	if len(attempts) > 0 {
		match = append(match, conversation.HasAttemptsWith(attempt.Or(attempts...)))
	}
	convs, err := c.Conversation.Query().Where(conversation.Or(match...)).
		Select(conversation.FieldID, conversation.FieldUserID).All(ctx)
	if err != nil {
		return err
	}
	for _, conv := range convs {
		if conv.UserID != self {
			known[conv.ID] = conv.UserID
		}
	}
	return nil
}
