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

// ActionAdminRead is the audit action of an admin reading another user's
// conversation.
const ActionAdminRead = "conversation.admin_read"

type readAuditKey struct{}

type noReadAuditKey struct{}

// readLog is one audit scope: what an admin read and what is written.
type readLog struct {
	mu sync.Mutex
	// conversations maps a conversation read (and not yet audited) to its
	// owner.
	conversations map[uuid.UUID]string
	// attempts maps the attempt of a source or feedback row read to its
	// owner, until the attempt's conversation is looked up.
	attempts map[uuid.UUID]string
	// partial holds, per table, rows read without the columns that name
	// their owner and conversation (a query selecting a few fields).
	partial map[string][]uuid.UUID
	// written are the conversations already audited in this scope.
	written map[uuid.UUID]bool
}

func newReadLog() *readLog {
	return &readLog{
		conversations: map[uuid.UUID]string{},
		attempts:      map[uuid.UUID]string{},
		partial:       map[string][]uuid.UUID{},
		written:       map[uuid.UUID]bool{},
	}
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

// installedReadAudit remembers the clients that have the interceptor.
var installedReadAudit sync.Map

// installReadAudit adds the read-audit interceptor to c, once per client.
func installReadAudit(c *ent.Client, log *slog.Logger) {
	if _, loaded := installedReadAudit.LoadOrStore(c, struct{}{}); loaded {
		return
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
	if !v.IsAdmin() {
		return // only admins see other users' rows
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
	add := func(m map[uuid.UUID]string, id uuid.UUID, owner string) {
		if owner != self {
			m[id] = owner
			n++
		}
	}
	partial := func(table string, id uuid.UUID) {
		l.partial[table] = append(l.partial[table], id)
		n++
	}
	switch rows := result.(type) {
	case []*ent.Conversation:
		for _, r := range rows {
			if r.UserID == "" {
				partial(conversation.Table, r.ID)
			} else {
				add(l.conversations, r.ID, r.UserID)
			}
		}
	case []*ent.Message:
		for _, r := range rows {
			if r.OwnerID == "" || r.ConversationID == uuid.Nil {
				partial(message.Table, r.ID)
			} else {
				add(l.conversations, r.ConversationID, r.OwnerID)
			}
		}
	case []*ent.Attempt:
		for _, r := range rows {
			if r.OwnerID == "" || r.ConversationID == uuid.Nil {
				partial(attempt.Table, r.ID)
			} else {
				add(l.conversations, r.ConversationID, r.OwnerID)
			}
		}
	case []*ent.Source:
		for _, r := range rows {
			if r.OwnerID == "" || r.AttemptID == uuid.Nil {
				partial(source.Table, r.ID)
			} else {
				add(l.attempts, r.AttemptID, r.OwnerID)
			}
		}
	case []*ent.Feedback:
		for _, r := range rows {
			if r.OwnerID == "" || r.AttemptID == uuid.Nil {
				partial(feedback.Table, r.ID)
			} else {
				add(l.attempts, r.AttemptID, r.OwnerID)
			}
		}
	}
	return n > 0
}

// take returns and clears what was recorded since the last flush.
func (l *readLog) take() (convs, atts map[uuid.UUID]string, partial map[string][]uuid.UUID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	convs, atts, partial = l.conversations, l.attempts, l.partial
	l.conversations, l.attempts, l.partial = map[uuid.UUID]string{}, map[uuid.UUID]string{}, map[string][]uuid.UUID{}
	return convs, atts, partial
}

// flush resolves what was recorded to conversations and writes one event
// for each conversation not yet audited in this scope. Its own lookups are
// not audited and survive the request's cancellation.
func (l *readLog) flush(ctx context.Context, c *ent.Client, log *slog.Logger) {
	v := viewer.FromContext(ctx)
	if v == nil {
		return
	}
	convs, atts, partial := l.take()
	if len(convs)+len(atts)+len(partial) == 0 {
		return
	}
	qctx := withoutReadAudit(authz.IncludeDeleted(context.WithoutCancel(ctx)))
	if err := resolvePartial(qctx, c, v.UserID, partial, convs, atts); err != nil {
		log.ErrorContext(ctx, "admin read not audited: lookup failed", "err", err)
	}
	if err := resolveAttempts(qctx, c, atts, convs); err != nil {
		log.ErrorContext(ctx, "admin read not audited: lookup failed", "err", err)
	}
	l.mu.Lock()
	var fresh []uuid.UUID
	for id := range convs {
		if !l.written[id] {
			l.written[id] = true
			fresh = append(fresh, id)
		}
	}
	l.mu.Unlock()
	if len(fresh) == 0 {
		return
	}
	bulk := make([]*ent.AuditEventCreate, len(fresh))
	for i, id := range fresh {
		bulk[i] = c.AuditEvent.Create().SetActor(v.UserID).SetAction(ActionAdminRead).
			SetTargetType("Conversation").SetTargetID(id.String()).
			SetMetadata(map[string]string{"owner": convs[id]})
	}
	if err := c.AuditEvent.CreateBulk(bulk...).Exec(qctx); err != nil {
		log.ErrorContext(ctx, "admin read not audited", "conversations", len(fresh), "err", err)
	}
}

// resolvePartial looks up the owner and conversation (or attempt) of rows
// read without them, one query per table, and adds those of other users
// than self to convs and atts.
func resolvePartial(ctx context.Context, c *ent.Client, self string, partial map[string][]uuid.UUID, convs, atts map[uuid.UUID]string) error {
	add := func(m map[uuid.UUID]string, id uuid.UUID, owner string) {
		if owner != self {
			m[id] = owner
		}
	}
	for table, ids := range partial {
		switch table {
		case conversation.Table:
			rows, err := c.Conversation.Query().Where(conversation.IDIn(ids...)).
				Select(conversation.FieldID, conversation.FieldUserID).All(ctx)
			if err != nil {
				return err
			}
			for _, r := range rows {
				add(convs, r.ID, r.UserID)
			}
		case message.Table:
			rows, err := c.Message.Query().Where(message.IDIn(ids...)).
				Select(message.FieldID, message.FieldOwnerID, message.FieldConversationID).All(ctx)
			if err != nil {
				return err
			}
			for _, r := range rows {
				add(convs, r.ConversationID, r.OwnerID)
			}
		case attempt.Table:
			rows, err := c.Attempt.Query().Where(attempt.IDIn(ids...)).
				Select(attempt.FieldID, attempt.FieldOwnerID, attempt.FieldConversationID).All(ctx)
			if err != nil {
				return err
			}
			for _, r := range rows {
				add(convs, r.ConversationID, r.OwnerID)
			}
		case source.Table:
			rows, err := c.Source.Query().Where(source.IDIn(ids...)).
				Select(source.FieldID, source.FieldOwnerID, source.FieldAttemptID).All(ctx)
			if err != nil {
				return err
			}
			for _, r := range rows {
				add(atts, r.AttemptID, r.OwnerID)
			}
		case feedback.Table:
			rows, err := c.Feedback.Query().Where(feedback.IDIn(ids...)).
				Select(feedback.FieldID, feedback.FieldOwnerID, feedback.FieldAttemptID).All(ctx)
			if err != nil {
				return err
			}
			for _, r := range rows {
				add(atts, r.AttemptID, r.OwnerID)
			}
		}
	}
	return nil
}

// resolveAttempts adds the conversations of atts to convs, with one query.
func resolveAttempts(ctx context.Context, c *ent.Client, atts, convs map[uuid.UUID]string) error {
	if len(atts) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, 0, len(atts))
	for id := range atts {
		ids = append(ids, id)
	}
	rows, err := c.Attempt.Query().Where(attempt.IDIn(ids...)).
		Select(attempt.FieldID, attempt.FieldConversationID).All(ctx)
	if err != nil {
		return err
	}
	for _, r := range rows {
		convs[r.ConversationID] = atts[r.ID]
	}
	return nil
}
