// Package readaudit audits the reads of other users' conversation content
// by admins and support agents (docs/API.md, Audit), whatever the path: a
// conversation, its messages, attempts, sources or feedback, reached by id,
// through node, an edge, a list or a subscription. An Ent interceptor on
// those five tables (Install, added once where the client is opened) notes,
// for each query of an admin or support agent, the conversations of other
// users whose rows it returned; the audit scope in the context (one per
// GraphQL operation, WithScope) collects them, and Flush writes one event
// per conversation per scope, however many rows were read:
// conversation.admin_read for an admin, conversation.support_read naming
// the grant that opened it for a support agent (supportread.go). A query
// outside any scope is audited on its own, at once; a context marked
// Exempt is not audited (aggregates, the engine's own bookkeeping, and
// operations that write their own audit event).
package readaudit

import (
	"context"
	"log/slog"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/ctxflag"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The audit actions of the reads.
const (
	// ActionAdminRead is the audit action of an admin reading another
	// user's conversation.
	ActionAdminRead = "conversation.admin_read"
	// ActionSupportRead is the audit action of a support agent reading a
	// conversation under a support grant: one event per conversation per
	// scope, naming the grant.
	ActionSupportRead = "conversation.support_read"
)

type scopeKey struct{}

type exemptKey struct{}

// WithScope returns ctx carrying a fresh audit scope. The API opens one
// per GraphQL operation and calls Flush after each of its responses, so an
// operation writes at most one event per conversation.
func WithScope(ctx context.Context) context.Context {
	return context.WithValue(ctx, scopeKey{}, newReadLog())
}

// Exempt marks the reads in ctx as not a viewing of content: aggregates
// over the tenant, the engine's own bookkeeping, and operations that write
// their own audit event (delete, restore).
func Exempt(ctx context.Context) context.Context {
	return ctxflag.Set[exemptKey](ctx)
}

func exempt(ctx context.Context) bool {
	return ctxflag.IsSet[exemptKey](ctx)
}

func scopeFrom(ctx context.Context) *readLog {
	l, _ := ctx.Value(scopeKey{}).(*readLog)
	return l
}

// Flush writes the events of ctx's audit scope not yet written, through
// the client whose interceptor noted the reads. Failing to audit is
// logged, never hidden from the operator.
func Flush(ctx context.Context) {
	if l := scopeFrom(ctx); l != nil {
		l.flush(ctx)
	}
}

// Install adds the read-audit interceptor to c: the queries of
// conversations, messages, attempts, sources and feedback are noted for
// the audit scope in their context, and audited at once outside one;
// failures are logged to log (nil: slog.Default()). The composition root
// calls it once, where it opens the client (cmd/ragchat's openDB, through
// server.InstallInterceptors, and the test harnesses); reads through a
// client without it are not audited, and installing it twice audits them
// twice.
func Install(c *ent.Client, log *slog.Logger) {
	if log == nil {
		log = slog.Default()
	}
	w := writer{client: c, log: log}
	inter := ent.InterceptFunc(func(next ent.Querier) ent.Querier {
		return ent.QuerierFunc(func(ctx context.Context, q ent.Query) (ent.Value, error) {
			v, err := next.Query(ctx, q)
			if err == nil {
				noteRead(ctx, w, v)
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

// noteRead records the rows of result that an admin or support agent in
// ctx read of other users' conversations. Outside an audit scope it writes
// their events at once.
func noteRead(ctx context.Context, w writer, result ent.Value) {
	v := viewer.FromContext(ctx)
	if !v.IsAdmin() && !v.IsSupport() {
		return // only admins and support agents see other users' rows
	}
	if exempt(ctx) {
		return
	}
	l := scopeFrom(ctx)
	scoped := l != nil
	if !scoped {
		l = newReadLog()
	}
	if l.note(w, v.UserID, result) && !scoped {
		l.flush(ctx)
	}
}
