package authz

import (
	"context"
	"sync/atomic"

	"entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/attachmentchunk"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/conversationtag"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/searchentry"
	"github.com/ragchat/ragchat/ent/sharelink"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/ctxflag"
)

// A soft-deleted conversation disappears at once, with every row beneath
// it (messages, attempts, sources, feedback), for every viewer, admins
// included: each query, update, delete and edge predicate on those tables
// leaves out rows whose conversation is DELETED, so an id of such a row is
// NOT_FOUND exactly like an unknown id (docs/API.md, Privacy). Only the few
// places that must see them opt in with IncludeDeleted (or, for a whole
// GraphQL field, IncludeDeletedInScope).

type includeDeletedKey struct{}

// IncludeDeleted returns a copy of ctx in which rows of DELETED
// conversations are visible to the viewer (within the tenant and owner
// scopes, which still apply). It is for restoring a conversation, for an
// admin listing DELETED conversations on purpose, and for the engine's own
// bookkeeping of an attempt whose conversation was deleted while it ran.
func IncludeDeleted(ctx context.Context) context.Context {
	return ctxflag.Set[includeDeletedKey](ctx)
}

// IncludesDeleted reports whether ctx was made by IncludeDeleted, or lies
// in a deleted-rows scope that IncludeDeletedInScope opened.
func IncludesDeleted(ctx context.Context) bool {
	if ctxflag.IsSet[includeDeletedKey](ctx) {
		return true
	}
	s, _ := ctx.Value(deletedScopeKey{}).(*deletedScope)
	return s != nil && s.open.Load()
}

// A deleted-rows scope lets a decision to show rows of DELETED
// conversations, made deep in a call, hold for reads that run under an
// enclosing context: the GraphQL layer gives each root field a scope
// (WithDeletedScope), because the reads beneath a field's rows run under
// the root field's context, not under the one its resolver passed to the
// engine. Only the engine opens one (IncludeDeletedInScope), for the one
// read that lists DELETED conversations on purpose.
type deletedScope struct{ open atomic.Bool }

type deletedScopeKey struct{}

// WithDeletedScope returns a copy of ctx with a closed deleted-rows scope
// of its own: rows of DELETED conversations stay hidden from ctx and from
// every context derived from it until IncludeDeletedInScope opens it.
func WithDeletedScope(ctx context.Context) context.Context {
	return context.WithValue(ctx, deletedScopeKey{}, &deletedScope{})
}

// IncludeDeletedInScope returns IncludeDeleted(ctx) and opens the
// deleted-rows scope that ctx lies in, if any, so that rows of DELETED
// conversations are visible to every context of the scope from now on.
func IncludeDeletedInScope(ctx context.Context) context.Context {
	if s, _ := ctx.Value(deletedScopeKey{}).(*deletedScope); s != nil {
		s.open.Store(true)
	}
	return IncludeDeleted(ctx)
}

// liveness is, per table, the predicate that leaves out rows of gone
// conversations (DELETED ones and expired temporary ones, temporary.go) as
// g says. Tables without an entry do not live in a conversation.
var liveness = map[string]func(g gone) func(*sql.Selector){
	conversation.Table:    conversationLive,
	message.Table:         conversationNotGone(message.FieldConversationID),
	attempt.Table:         conversationNotGone(attempt.FieldConversationID),
	source.Table:          attemptNotGone(source.FieldAttemptID),
	feedback.Table:        attemptNotGone(feedback.FieldAttemptID),
	supportgrant.Table:    conversationNotGone(supportgrant.FieldConversationID),
	conversationtag.Table: conversationNotGone(conversationtag.FieldConversationID),
	searchentry.Table:     conversationNotGone(searchentry.FieldConversationID),
	sharelink.Table:       conversationNotGone(sharelink.FieldConversationID),
	attachment.Table:      conversationNotGone(attachment.FieldConversationID),
	attachmentchunk.Table: conversationNotGone(attachmentchunk.FieldConversationID),
}

// notDeleted returns table's liveness predicate for ctx (nil when ctx
// sees every row of table, or table does not live in a conversation).
func notDeleted(ctx context.Context, table string) func(*sql.Selector) {
	l, ok := liveness[table]
	if !ok {
		return nil
	}
	g := goneIn(ctx)
	if !g.deleted && !g.expired {
		return nil
	}
	return l(g)
}

// conversationLive keeps the conversation rows that are not gone: not
// DELETED, and not a temporary chat past its expiry.
func conversationLive(g gone) func(*sql.Selector) {
	return func(s *sql.Selector) {
		var ps []*sql.Predicate
		if g.deleted {
			ps = append(ps, sql.NEQ(s.C(conversation.FieldStatus), conversation.StatusDELETED.String()))
		}
		if g.expired {
			ps = append(ps, TemporaryLiveAt(s.C(conversation.FieldTemporaryExpiresAt), g.now))
		}
		s.Where(sql.And(ps...))
	}
}

// conversationNotGone keeps rows whose column col names a conversation
// that is not gone: NOT EXISTS (one primary-key probe per row).
func conversationNotGone(col string) func(gone) func(*sql.Selector) {
	return func(g gone) func(*sql.Selector) {
		return func(s *sql.Selector) {
			b := sql.Dialect(s.Dialect())
			c := b.Table(conversation.Table).As("authz_dc")
			s.Where(sql.Not(sql.Exists(
				b.Select(c.C(conversation.FieldID)).From(c).Where(sql.And(
					sql.ColumnsEQ(c.C(conversation.FieldID), s.C(col)),
					g.of(c),
				)),
			)))
		}
	}
}

// attemptNotGone keeps rows whose column col names an attempt whose
// conversation is not gone.
func attemptNotGone(col string) func(gone) func(*sql.Selector) {
	return func(g gone) func(*sql.Selector) {
		return func(s *sql.Selector) {
			b := sql.Dialect(s.Dialect())
			a := b.Table(attempt.Table).As("authz_da")
			c := b.Table(conversation.Table).As("authz_dc")
			s.Where(sql.Not(sql.Exists(
				b.Select(a.C(attempt.FieldID)).From(a).
					Join(c).On(c.C(conversation.FieldID), a.C(attempt.FieldConversationID)).
					Where(sql.And(
						sql.ColumnsEQ(a.C(attempt.FieldID), s.C(col)),
						g.of(c),
					)),
			)))
		}
	}
}
