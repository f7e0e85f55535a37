package authz

import (
	"context"
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/attachmentchunk"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/ctxflag"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Delegated support access (internal/support/README.md):
// a support agent reads, and only reads, the conversations that an
// APPROVED, unexpired support grant names them for: the conversation row,
// its messages, its attempts and their sources. The widening applies to
// queries and edge predicates only; updates and deletes keep the owner
// scope, so a write under a grant matches no row and is NOT_FOUND. A grant
// that is revoked, denied, still pending or past expires_at matches
// nothing from the next query on. Live streams never use grants
// (WithoutGrants), since they would outlive a revoke.

// supportReach is, per table, the predicate "this row lies in a
// conversation that an active grant opens to v at now". Tables without an
// entry are never opened by a grant (feedback, for instance).
var supportReach = map[string]func(v *viewer.Viewer, now time.Time) func(*sql.Selector){
	conversation.Table: func(v *viewer.Viewer, now time.Time) func(*sql.Selector) {
		return grantedConversation(v, now, conversation.FieldID)
	},
	message.Table: func(v *viewer.Viewer, now time.Time) func(*sql.Selector) {
		return grantedConversation(v, now, message.FieldConversationID)
	},
	attempt.Table: func(v *viewer.Viewer, now time.Time) func(*sql.Selector) {
		return grantedConversation(v, now, attempt.FieldConversationID)
	},
	source.Table: grantedAttempt,
	attachment.Table: func(v *viewer.Viewer, now time.Time) func(*sql.Selector) {
		return grantedConversation(v, now, attachment.FieldConversationID)
	},
	attachmentchunk.Table: func(v *viewer.Viewer, now time.Time) func(*sql.Selector) {
		return grantedConversation(v, now, attachmentchunk.FieldConversationID)
	},
}

// activeGrant returns the conditions on the grant alias g that make it
// open a conversation to v at now.
func activeGrant(g *sql.SelectTable, v *viewer.Viewer, now time.Time) *sql.Predicate {
	return sql.And(
		sql.EQ(g.C(supportgrant.FieldTenantID), v.TenantID),
		sql.EQ(g.C(supportgrant.FieldAgentID), v.UserID),
		sql.EQ(g.C(supportgrant.FieldStatus), supportgrant.StatusAPPROVED.String()),
		sql.GT(g.C(supportgrant.FieldExpiresAt), now),
	)
}

// grantedConversation keeps rows whose column col names a conversation an
// active grant opens to v: EXISTS over the grants (an index probe).
func grantedConversation(v *viewer.Viewer, now time.Time, col string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		b := sql.Dialect(s.Dialect())
		g := b.Table(supportgrant.Table).As("authz_sg")
		s.Where(sql.Exists(
			b.Select(g.C(supportgrant.FieldID)).From(g).Where(sql.And(
				sql.ColumnsEQ(g.C(supportgrant.FieldConversationID), s.C(col)),
				activeGrant(g, v, now),
			)),
		))
	}
}

// grantedAttempt keeps sources whose attempt lies in a conversation an
// active grant opens to v.
func grantedAttempt(v *viewer.Viewer, now time.Time) func(*sql.Selector) {
	return func(s *sql.Selector) {
		b := sql.Dialect(s.Dialect())
		a := b.Table(attempt.Table).As("authz_sa")
		g := b.Table(supportgrant.Table).As("authz_sg")
		s.Where(sql.Exists(
			b.Select(a.C(attempt.FieldID)).From(a).
				Join(g).On(g.C(supportgrant.FieldConversationID), a.C(attempt.FieldConversationID)).
				Where(sql.And(
					sql.ColumnsEQ(a.C(attempt.FieldID), s.C(source.FieldAttemptID)),
					activeGrant(g, v, now),
				)),
		))
	}
}

type supportLookupKey struct{}

type withoutGrantsKey struct{}

// WithoutGrants returns a copy of ctx in which support grants open
// nothing. Live streams use it: a stream outlives the query that opened
// it, so it could outlive a revoke or an expiry; streams of another user's
// conversation are therefore NOT_FOUND to a support agent.
func WithoutGrants(ctx context.Context) context.Context {
	return ctxflag.Set[withoutGrantsKey](ctx)
}

// SupportRequestLookup returns a copy of ctx in which a support agent sees
// every conversation row of their tenant, for the one lookup that files a
// support request: which conversation, and whose. Nothing else widens:
// messages, attempts and sources still need an active grant, and the
// tenant and liveness filters still apply.
func SupportRequestLookup(ctx context.Context) context.Context {
	return ctxflag.Set[supportLookupKey](ctx)
}

// readScope returns the predicate limiting a query of table to what v may
// read: the table's scope, widened for support agents by their active
// grants (or, in a SupportRequestLookup context, to the tenant's
// conversations). nil means every row of the tenant.
func readScope(ctx context.Context, v *viewer.Viewer, table string, sc scope) func(*sql.Selector) {
	base := sc(v)
	if base == nil || !v.IsSupport() {
		return base
	}
	if ctxflag.IsSet[withoutGrantsKey](ctx) {
		return base
	}
	if table == conversation.Table {
		if ctxflag.IsSet[supportLookupKey](ctx) {
			return nil
		}
	}
	reach, ok := supportReach[table]
	if !ok {
		return base
	}
	return sql.OrPredicates(base, reach(v, time.Now().UTC()))
}

// grantsOfViewer shows a support grant to the agent it names and to the
// owner of its conversation; admins see every grant of the tenant.
func grantsOfViewer(v *viewer.Viewer) func(*sql.Selector) {
	if v.IsAdmin() {
		return nil
	}
	return sql.OrPredicates(
		sql.FieldEQ(supportgrant.FieldAgentID, v.UserID),
		sql.FieldEQ(supportgrant.FieldConversationOwnerID, v.UserID),
	)
}

// agentMutation is implemented by SupportGrant mutations.
type agentMutation interface {
	AgentID() (string, bool)
}

// DenyCreateUnlessSupportAgent denies creating a support grant to anyone
// but a support agent requesting it for themselves.
func DenyCreateUnlessSupportAgent() privacy.MutationRule {
	return onCreate(func(v *viewer.Viewer, m ent.Mutation) error {
		am, ok := m.(agentMutation)
		if !ok || !v.IsSupport() {
			return privacy.Denyf("support role required")
		}
		if id, set := am.AgentID(); !set || id != v.UserID {
			return privacy.Denyf("agent mismatch")
		}
		return privacy.Skip
	})
}

// RestrictGrantChanges lets a support grant be changed, beyond revoking it,
// only by its conversation's owner and by admins (whom the engine further
// bounds by the tenant's approval policy): for anyone else an update that
// approves, denies, extends or otherwise edits a grant matches no row. So
// an agent can end their own grant but never approve or prolong it, even
// through Ent directly. Deletes are refused; grants go with their
// conversation (a cascade) when the purge job removes it.
func RestrictGrantChanges() privacy.MutationRule {
	return privacy.MutationRuleFunc(func(ctx context.Context, m ent.Mutation) error {
		if m.Op().Is(ent.OpDelete | ent.OpDeleteOne) {
			return privacy.Denyf("support grants are not deleted")
		}
		if !m.Op().Is(ent.OpUpdate | ent.OpUpdateOne) {
			return privacy.Skip
		}
		v := viewer.FromContext(ctx)
		if v == nil {
			return privacy.Denyf("viewer is missing")
		}
		if v.IsAdmin() || revokesOnly(m) {
			return privacy.Skip
		}
		w, ok := m.(wherePer)
		if !ok {
			return privacy.Denyf("unexpected mutation %T", m)
		}
		w.WhereP(sql.FieldEQ(supportgrant.FieldConversationOwnerID, v.UserID))
		return privacy.Skip
	})
}

// revokesOnly reports whether m does nothing but revoke a grant.
func revokesOnly(m ent.Mutation) bool {
	if len(m.AddedFields())+len(m.ClearedFields()) > 0 {
		return false
	}
	for _, f := range m.Fields() {
		switch f {
		case supportgrant.FieldStatus:
			if s, _ := m.Field(f); s != supportgrant.StatusREVOKED {
				return false
			}
		case supportgrant.FieldRevokedBy, supportgrant.FieldRevokedAt, supportgrant.FieldUpdatedAt:
		default:
			return false
		}
	}
	return true
}
