package authz

import (
	"context"
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect/sql"

	gen "github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/intercept"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/ent/sharelink"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/ent/tenant"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Share links' reads (internal/sharing/README.md) run as a share scope
// (viewer.ShareScope), never as a viewer or a system job. For a share
// scope DecideShareScope makes the whole decision, before any other rule:
// each scope reaches the rows shareRows names for it, within the link's
// tenant and the liveness filters (deleted.go, temporary.go), and nothing
// else; edge predicates (VisibleRows) see the same rows. Which rows:
//
//   - ShareLookup: the share link with the token's hash, while it is
//     neither revoked nor expired and its conversation is not gone, and
//     that link's tenant row.
//   - ShareReader: while its link is open (not revoked, not expired) and
//     names its conversation, which is not a temporary chat: that
//     conversation, the messages of the frozen path, the sources of
//     their attempts and, with TenantDocuments, the documents of the
//     tenant visible to the whole tenant and their chunks. Its one write
//     adds one read to its link's count.
//   - ShareAudience: the documents its conversation's sources cite that
//     every reader of the audience may read (the ACL of acl.go).

// shareTables maps the Ent types a share scope may reach to their tables;
// a share scope is denied every other type.
var shareTables = map[string]string{
	gen.TypeShareLink:    sharelink.Table,
	gen.TypeTenant:       tenant.Table,
	gen.TypeConversation: conversation.Table,
	gen.TypeMessage:      message.Table,
	gen.TypeSource:       source.Table,
	gen.TypeDocument:     document.Table,
	gen.TypeChunk:        chunk.Table,
}

// DecideShareScope decides every query and mutation of a share scope
// context: a query of a table the scope reaches is allowed with the
// scope's rows; a share reader's update that adds one to its own link's
// read count (and sets last_read_at, nothing else) is allowed on that
// link; everything else is denied. For any other context it skips. Place
// it first, so that no later rule can widen a share scope.
func DecideShareScope() privacy.QueryMutationRule { return shareRule{} }

type shareRule struct{}

// EvalQuery implements privacy.QueryRule.
func (shareRule) EvalQuery(ctx context.Context, q ent.Query) error {
	sc := viewer.ShareScopeFrom(ctx)
	if sc == nil {
		return privacy.Skip
	}
	iq, err := intercept.NewQuery(q)
	if err != nil {
		return privacy.Denyf("share scope: %v", err)
	}
	p := shareRows(sc, shareTables[iq.Type()])
	if p == nil {
		return privacy.Denyf("share scope: %s is not shared", iq.Type())
	}
	iq.WhereP(p)
	return privacy.Allow
}

// EvalMutation implements privacy.MutationRule.
func (shareRule) EvalMutation(ctx context.Context, m ent.Mutation) error {
	sc := viewer.ShareScopeFrom(ctx)
	if sc == nil {
		return privacy.Skip
	}
	r, reader := sc.(viewer.ShareReader)
	w, ok := m.(wherePer)
	if !reader || !ok || m.Type() != gen.TypeShareLink || !countsOneRead(m) {
		return privacy.Denyf("share scope: only a read count is written")
	}
	w.WhereP(
		sql.FieldEQ(sharelink.FieldID, r.LinkID),
		sql.FieldEQ(sharelink.FieldTenantID, r.TenantID),
		readerLink(r),
		sharedLive(sharelink.Table, time.Now().UTC()),
	)
	return privacy.Allow
}

// countsOneRead reports whether m is an update that adds one to
// read_count and sets last_read_at, and changes nothing else.
func countsOneRead(m ent.Mutation) bool {
	if !m.Op().Is(ent.OpUpdate|ent.OpUpdateOne) ||
		len(m.ClearedFields())+len(m.AddedEdges())+len(m.ClearedEdges())+len(m.RemovedEdges()) > 0 {
		return false
	}
	set, added := m.Fields(), m.AddedFields()
	if len(set) != 1 || set[0] != sharelink.FieldLastReadAt || len(added) != 1 || added[0] != sharelink.FieldReadCount {
		return false
	}
	n, _ := m.AddedField(sharelink.FieldReadCount)
	return n == int64(1)
}

// shareRows returns the predicate of the rows of table that the share
// scope sc reaches, or nil when it reaches none of table.
func shareRows(sc viewer.ShareScope, table string) func(*sql.Selector) {
	now := time.Now().UTC()
	switch s := sc.(type) {
	case viewer.ShareLookup:
		return lookupRows(s, table, now)
	case viewer.ShareReader:
		return readerRows(s, table, now)
	case viewer.ShareAudience:
		return audienceRows(s, table)
	}
	return nil
}

// lookupRows is what a ShareLookup reaches of table.
func lookupRows(s viewer.ShareLookup, table string, now time.Time) func(*sql.Selector) {
	link := sql.AndPredicates(
		sql.FieldEQ(sharelink.FieldTokenHash, s.TokenHash),
		linkOpen(s.At),
		sharedLive(sharelink.Table, now),
	)
	switch table {
	case sharelink.Table:
		return link
	case tenant.Table:
		return func(sel *sql.Selector) {
			b := sql.Dialect(sel.Dialect())
			l := b.Table(sharelink.Table).As("authz_sl")
			tenants := b.Select(l.C(sharelink.FieldTenantID)).From(l)
			link(tenants)
			sel.Where(sql.In(sel.C(tenant.FieldID), tenants))
		}
	}
	return nil
}

// readerRows is what a ShareReader reaches of table.
func readerRows(r viewer.ShareReader, table string, now time.Time) func(*sql.Selector) {
	var rows func(*sql.Selector)
	switch table {
	case conversation.Table:
		rows = sql.FieldEQ(conversation.FieldID, r.ConversationID)
	case message.Table:
		rows = sql.AndPredicates(
			sql.FieldEQ(message.FieldConversationID, r.ConversationID),
			sql.FieldIn(message.FieldID, r.PathMessageIDs...),
		)
	case source.Table:
		rows = pathSources(r)
	case document.Table:
		rows = none
		if r.TenantDocuments {
			rows = sql.FieldEQ(document.FieldVisibility, document.VisibilityTENANT.String())
		}
	case chunk.Table:
		// chunk.HasDocument is answered with the documents this scope
		// reaches (VisibleRows).
		rows = none
		if r.TenantDocuments {
			rows = chunk.HasDocument()
		}
	default:
		return nil
	}
	return sql.AndPredicates(
		sql.FieldEQ("tenant_id", r.TenantID),
		rows,
		sharedLive(table, now),
		readerLink(r),
	)
}

// audienceRows is what a ShareAudience reaches of table: documents only.
func audienceRows(a viewer.ShareAudience, table string) func(*sql.Selector) {
	if table != document.Table {
		return nil
	}
	var acl predicate.Document
	switch {
	case a.Users == nil:
		acl = DocumentReadableBy(&viewer.Viewer{TenantID: a.TenantID})
	case len(a.Users) == 0:
		acl = none
	default:
		each := make([]predicate.Document, 0, len(a.Users))
		for _, u := range a.Users {
			each = append(each, DocumentReadableBy(&viewer.Viewer{TenantID: a.TenantID, UserID: u}))
		}
		acl = document.And(each...)
	}
	return sql.AndPredicates(sql.FieldEQ(document.FieldTenantID, a.TenantID), citedIn(a), acl)
}

// none matches no row.
func none(s *sql.Selector) { s.Where(sql.False()) }

// sharedLive is table's liveness filter for a share scope: rows of gone
// conversations (DELETED ones, expired temporary chats) are left out
// whatever the context says (IncludeDeleted does not reach a share
// scope).
func sharedLive(table string, now time.Time) func(*sql.Selector) {
	if l, ok := liveness[table]; ok {
		return l(gone{deleted: true, expired: true, now: now})
	}
	return func(*sql.Selector) {}
}

// linkOpen is the predicate "this share link is neither revoked nor
// expired at at, and its conversation is not a temporary chat" (one is
// never shared: internal/sharing refuses to make its link).
func linkOpen(at time.Time) func(*sql.Selector) {
	return func(s *sql.Selector) {
		b := sql.Dialect(s.Dialect())
		c := b.Table(conversation.Table).As("authz_lc")
		conv := b.Select(c.C(conversation.FieldID)).From(c)
		conv.Where(sql.ColumnsEQ(c.C(conversation.FieldID), s.C(sharelink.FieldConversationID)))
		NotTemporary()(conv)
		s.Where(sql.And(
			sql.IsNull(s.C(sharelink.FieldRevokedAt)),
			wrapped(sql.Or(sql.IsNull(s.C(sharelink.FieldExpiresAt)), sql.GT(s.C(sharelink.FieldExpiresAt), at.UTC()))),
			sql.Exists(conv),
		))
	}
}

// readerLink is the predicate "r's link is open (linkOpen) and names r's
// conversation in r's tenant": an uncorrelated EXISTS, a primary-key
// probe, so that a reader's scope ends with its link.
func readerLink(r viewer.ShareReader) func(*sql.Selector) {
	return func(s *sql.Selector) {
		s.Where(sql.Exists(subselect(s, sharelink.Table, "authz_rl", sharelink.FieldID,
			sql.FieldEQ(sharelink.FieldID, r.LinkID),
			sql.FieldEQ(sharelink.FieldTenantID, r.TenantID),
			sql.FieldEQ(sharelink.FieldConversationID, r.ConversationID),
			linkOpen(r.At),
		)))
	}
}

// pathSources keeps the sources of the attempts of r's path's messages.
func pathSources(r viewer.ShareReader) func(*sql.Selector) {
	return func(s *sql.Selector) {
		s.Where(sql.In(s.C(source.FieldAttemptID), subselect(s, message.Table, "authz_pm", message.FieldAttemptID,
			sql.FieldEQ(message.FieldTenantID, r.TenantID),
			sql.FieldEQ(message.FieldConversationID, r.ConversationID),
			sql.FieldIn(message.FieldID, r.PathMessageIDs...),
			sql.FieldNotNull(message.FieldAttemptID),
		)))
	}
}

// subselect is "SELECT alias.column FROM table AS alias WHERE preds (all
// of them)" in s's dialect: the inner query of an EXISTS or IN on s.
func subselect(s *sql.Selector, table, alias, column string, preds ...func(*sql.Selector)) *sql.Selector {
	b := sql.Dialect(s.Dialect())
	t := b.Table(table).As(alias)
	sub := b.Select(t.C(column)).From(t)
	sql.AndPredicates(preds...)(sub)
	return sub
}

// citedIn keeps the documents that a source of a's conversation cites.
func citedIn(a viewer.ShareAudience) func(*sql.Selector) {
	return func(s *sql.Selector) {
		b := sql.Dialect(s.Dialect())
		src := b.Table(source.Table).As("authz_cs")
		at := b.Table(attempt.Table).As("authz_ca")
		cited := b.Select(src.C(source.FieldID)).From(src).
			Join(at).On(at.C(attempt.FieldID), src.C(source.FieldAttemptID))
		cited.Where(sql.And(
			sql.ColumnsEQ(src.C(source.FieldDocumentID), s.C(document.FieldID)),
			sql.EQ(src.C(source.FieldTenantID), a.TenantID),
			sql.EQ(at.C(attempt.FieldConversationID), a.ConversationID),
		))
		s.Where(sql.Exists(cited))
	}
}
