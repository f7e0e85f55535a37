package chat

import (
	"context"
	"log/slog"
	"sync"

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

// Every read of another user's conversation content by an admin is audited
// (docs/API.md, Audit), whatever the path: a conversation, its messages,
// attempts, sources or feedback, reached by id, through node, an edge, a
// list or a subscription. An Ent interceptor on those five tables notes,
// for each admin query, the conversations of other users whose rows it
// returned; the audit scope in the context (one per GraphQL operation,
// WithReadAudit) collects them, and FlushReadAudit writes one
// conversation.admin_read event per conversation per scope, however many
// rows were read. A query outside any scope is audited on its own, at once.
// A support agent's reads under a grant are collected the same way and
// written as conversation.support_read events naming the grant
// (support_audit.go).

// ActionAdminRead is the audit action of an admin reading another user's
// conversation.
const ActionAdminRead = "conversation.admin_read"

type readAuditKey struct{}

type noReadAuditKey struct{}

// readLog is one audit scope: what an admin read and what is written.
type readLog struct {
	mu sync.Mutex
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

// WithReadAudit returns ctx carrying a fresh audit scope. The API opens one
// per GraphQL operation and calls Engine.FlushReadAudit after each of its
// responses, so an operation writes at most one event per conversation.
func WithReadAudit(ctx context.Context) context.Context {
	return context.WithValue(ctx, readAuditKey{}, newReadLog())
}

// withoutReadAudit marks reads that are not an admin viewing content:
// aggregates over the tenant, the engine's own bookkeeping, and operations
// that write their own audit event (delete, restore).
func withoutReadAudit(ctx context.Context) context.Context {
	return context.WithValue(ctx, noReadAuditKey{}, true)
}

func readLogFrom(ctx context.Context) *readLog {
	l, _ := ctx.Value(readAuditKey{}).(*readLog)
	return l
}

// FlushReadAudit writes the events of ctx's audit scope not yet written.
// Failing to audit is logged, never hidden from the operator.
func (e *Engine) FlushReadAudit(ctx context.Context) {
	if l := readLogFrom(ctx); l != nil {
		l.flush(ctx, e.client, e.log)
	}
}

// InstallReadAudit adds the read-audit interceptor to c (see above): the
// queries of conversations, messages, attempts, sources and feedback are
// noted for the audit scope in their context, and audited at once outside
// one; failures are logged to log (nil: slog.Default()). The composition
// root calls it once, where it opens the client (cmd/ragchat's openDB,
// through server.InstallInterceptors, and the test harnesses); reads
// through a client without it are not audited, and installing it twice
// audits them twice.
func InstallReadAudit(c *ent.Client, log *slog.Logger) {
	if log == nil {
		log = slog.Default()
	}
	inter := ent.InterceptFunc(func(next ent.Querier) ent.Querier {
		return ent.QuerierFunc(func(ctx context.Context, q ent.Query) (ent.Value, error) {
			v, err := next.Query(ctx, q)
			if err == nil {
				noteRead(ctx, c, log, v)
			}
			return v, err
		})
	})
	c.Conversation.Intercept(inter)
	c.Message.Intercept(inter)
	c.Attempt.Intercept(inter)
	c.Source.Intercept(inter)
	c.Feedback.Intercept(inter)
}

// noteRead records the rows of result that an admin in ctx read of other
// users' conversations. Outside an audit scope it writes their events at
// once.
func noteRead(ctx context.Context, c *ent.Client, log *slog.Logger, result ent.Value) {
	v := viewer.FromContext(ctx)
	if !v.IsAdmin() && !v.IsSupport() {
		return // only admins and support agents see other users' rows
	}
	if off, _ := ctx.Value(noReadAuditKey{}).(bool); off {
		return
	}
	l := readLogFrom(ctx)
	scoped := l != nil
	if !scoped {
		l = newReadLog()
	}
	if l.note(v.UserID, result) && !scoped {
		l.flush(ctx, c, log)
	}
}

// note records result's rows that are not self's; it reports whether it
// recorded any.
func (l *readLog) note(self string, result ent.Value) bool {
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
			if r.OwnerID == "" || r.ConversationID == uuid.Nil {
				row(message.Table, r.ID)
			} else {
				known(r.ConversationID, r.OwnerID)
			}
		}
	case []*ent.Attempt:
		for _, r := range rows {
			if r.OwnerID == "" || r.ConversationID == uuid.Nil {
				row(attempt.Table, r.ID)
			} else {
				known(r.ConversationID, r.OwnerID)
			}
		}
	case []*ent.Source:
		for _, r := range rows {
			switch {
			case r.OwnerID == self:
			case r.AttemptID != uuid.Nil:
				row(attempt.Table, r.AttemptID)
			default:
				row(source.Table, r.ID)
			}
		}
	case []*ent.Feedback:
		for _, r := range rows {
			switch {
			case r.OwnerID == self:
			case r.AttemptID != uuid.Nil:
				row(attempt.Table, r.AttemptID)
			default:
				row(feedback.Table, r.ID)
			}
		}
	}
	return n > 0
}

// take returns and clears what was recorded since the last flush.
func (l *readLog) take() (known map[uuid.UUID]string, rows map[string]map[uuid.UUID]bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	known, rows = l.known, l.rows
	l.known, l.rows = map[uuid.UUID]string{}, map[string]map[uuid.UUID]bool{}
	return known, rows
}

// flush resolves what was recorded to conversations and writes one event
// for each conversation not yet audited in this scope: at most one lookup
// and one insert. Its own lookup is not audited and survives the request's
// cancellation.
func (l *readLog) flush(ctx context.Context, c *ent.Client, log *slog.Logger) {
	v := viewer.FromContext(ctx)
	if v == nil {
		return
	}
	known, rows := l.take()
	if len(known)+len(rows) == 0 {
		return
	}
	qctx := withoutReadAudit(authz.IncludeDeleted(context.WithoutCancel(ctx)))
	if err := resolveRows(qctx, c, v.UserID, rows, known); err != nil {
		log.ErrorContext(ctx, "admin read not audited: lookup failed", "err", err)
	}
	l.mu.Lock()
	var fresh []uuid.UUID
	for id := range known {
		if !l.written[id] {
			l.written[id] = true
			fresh = append(fresh, id)
		}
	}
	l.mu.Unlock()
	if len(fresh) == 0 {
		return
	}
	if !v.IsAdmin() {
		writeSupportReads(ctx, qctx, c, log, v.UserID, fresh, known)
		return
	}
	bulk := make([]*ent.AuditEventCreate, len(fresh))
	for i, id := range fresh {
		bulk[i] = c.AuditEvent.Create().SetActor(v.UserID).SetAction(ActionAdminRead).
			SetTargetType("Conversation").SetTargetID(id.String()).
			SetMetadata(map[string]string{"owner": known[id]})
	}
	if err := c.AuditEvent.CreateBulk(bulk...).Exec(qctx); err != nil {
		log.ErrorContext(ctx, "admin read not audited", "conversations", len(fresh), "err", err)
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
