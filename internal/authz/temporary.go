package authz

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/ctxflag"
)

// A temporary chat (docs/API.md, "Temporary chats") is gone once its
// temporary_expires_at has passed, before the purge job removes its rows:
// like a DELETED conversation, it and every row beneath it (messages,
// attempts, sources, feedback, support grants, conversation tags) are left
// out of each query, update, delete and edge predicate, so an id of such a
// row is NOT_FOUND exactly like an unknown id. Unlike a DELETED
// conversation nothing brings it back: IncludeDeleted does not show it.
// Only the engine's own bookkeeping of an attempt that was running when
// its conversation went (IncludeExpired) and system jobs (the purge) see
// it. "Now" is the wall clock, as for support grants: the predicate is
// evaluated per statement, so the expiry is exact at any instant.

// gone says which conversations ctx does not see: DELETED ones (deleted)
// and temporary ones whose expiry is at or before now (expired).
type gone struct {
	deleted, expired bool
	now              time.Time
}

type includeExpiredKey struct{}

// IncludeExpired returns a copy of ctx in which rows of temporary chats
// past their expiry are visible (within the tenant and owner scopes,
// which still apply). It is for the engine's bookkeeping of an attempt
// whose conversation expired while it ran; it never returns them to a
// client.
func IncludeExpired(ctx context.Context) context.Context {
	return ctxflag.Set[includeExpiredKey](ctx)
}

// IncludesExpired reports whether ctx was made by IncludeExpired.
func IncludesExpired(ctx context.Context) bool {
	return ctxflag.IsSet[includeExpiredKey](ctx)
}

// goneIn returns what ctx does not see, at the wall clock's now.
func goneIn(ctx context.Context) gone {
	return gone{deleted: !IncludesDeleted(ctx), expired: !IncludesExpired(ctx), now: time.Now().UTC()}
}

// of returns the predicate "the conversation row of alias c is gone".
// Callers build it only when g hides something.
func (g gone) of(c *sql.SelectTable) *sql.Predicate {
	var ps []*sql.Predicate
	if g.deleted {
		ps = append(ps, sql.EQ(c.C(conversation.FieldStatus), conversation.StatusDELETED.String()))
	}
	if g.expired {
		ps = append(ps, TemporaryExpiredAt(c.C(conversation.FieldTemporaryExpiresAt), g.now))
	}
	return wrapped(sql.Or(ps...))
}

// TemporaryExpiredAt returns the predicate "column col, a conversation's
// temporary_expires_at, is set and at or before now": the conversation is
// an expired temporary chat. Hand-built statements that must agree with
// the liveness filter (the engine's sequence bump) use it.
func TemporaryExpiredAt(col string, now time.Time) *sql.Predicate {
	return sql.And(sql.NotNull(col), sql.LTE(col, now))
}

// TemporaryLiveAt returns the predicate "the conversation whose
// temporary_expires_at is column col is not an expired temporary chat at
// now" (null: not temporary).
func TemporaryLiveAt(col string, now time.Time) *sql.Predicate {
	return wrapped(sql.Or(sql.IsNull(col), sql.GT(col, now)))
}

// wrapped returns p in parentheses. Ent's builders leave an OR that is
// the only operand of an AND (or the only predicate added to a WHERE
// clause that has one already) unwrapped, so that "a AND b OR c" would
// bind wrongly.
func wrapped(p *sql.Predicate) *sql.Predicate {
	return sql.P(func(b *sql.Builder) {
		b.Wrap(func(b *sql.Builder) { b.Join(p) })
	})
}
