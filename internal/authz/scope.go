package authz

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/attachmentchunk"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/conversationtag"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/folder"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/modelprofile"
	"github.com/ragchat/ragchat/ent/searchentry"
	"github.com/ragchat/ragchat/ent/sharelink"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/ent/tag"
	"github.com/ragchat/ragchat/ent/tenant"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/ent/userquota"
	"github.com/ragchat/ragchat/internal/edgefilter"
	"github.com/ragchat/ragchat/internal/viewer"
)

// A scope returns the predicate that limits a tenant's rows of one table to
// those v may see, or nil when v sees every row of the tenant.
type scope func(v *viewer.Viewer) func(*sql.Selector)

// scopes is ragchat's whole visibility model beyond the tenant boundary, one
// entry per tenant-scoped table. Privacy policies (FilterScope) and edge
// predicates (edgefilter) both read it, so they cannot disagree.
var scopes = map[string]scope{
	knowledgebase.Table: everyone,
	conversation.Table:  conversationOwner,
	message.Table:       underOwnConversation,
	attempt.Table:       underOwnConversation,
	source.Table:        underOwnConversation,
	feedback.Table:      underOwnConversation,
	document.Table:      readableDocuments,
	chunk.Table:         chunksOfReadableDocuments,
	documentgrant.Table: grantsNamingViewer,
	auditevent.Table:    adminsOnly,
	supportgrant.Table:  grantsOfViewer,
	// A user's organisation of their conversations (tags, folders and
	// which tags a conversation has) is theirs: a support agent's grant
	// reaches none of it.
	tag.Table:             ownedByViewer(tag.FieldUserID),
	folder.Table:          ownedByViewer(folder.FieldUserID),
	conversationtag.Table: underOwnConversation,
	// The conversation search index mirrors messages and titles.
	searchentry.Table: underOwnConversation,
	// A share link is its owner's alone, admins included; readers reach
	// a link only through its token (internal/sharing).
	sharelink.Table: ownerOnly(sharelink.FieldOwnerID),
	// Model profiles: admins manage all; the others use what is open
	// to them (modelprofiles.go).
	modelprofile.Table: usableModelProfiles,
	// An attachment is its conversation's (owner_id copies the
	// conversation's owner); an agent reads it only under a grant.
	attachment.Table: underOwnConversation,
	// An attachment chunk is its attachment's.
	attachmentchunk.Table: underOwnConversation,
	// The usage ledger: members read their own entries, admins the
	// tenant's (internal/quota).
	usageentry.Table: ownedByViewer(usageentry.FieldUserID),
	// A user's quota override: members read their own, admins the
	// tenant's (internal/quota).
	userquota.Table: ownedByViewer(userquota.FieldUserID),
}

// everyone lets every viewer of the tenant see every row.
func everyone(*viewer.Viewer) func(*sql.Selector) { return nil }

// conversationOwner limits members and agents to their own conversations;
// admins see the tenant.
func conversationOwner(v *viewer.Viewer) func(*sql.Selector) {
	if v.IsAdmin() {
		return nil
	}
	return sql.FieldEQ(conversation.FieldUserID, v.UserID)
}

// ownedByViewer limits members and agents to the rows whose column col
// names them; admins see the tenant.
func ownedByViewer(col string) scope {
	return func(v *viewer.Viewer) func(*sql.Selector) {
		if v.IsAdmin() {
			return nil
		}
		return sql.FieldEQ(col, v.UserID)
	}
}

// ownerOnly limits every viewer, admins included, to the rows whose
// column col names them.
func ownerOnly(col string) scope {
	return func(v *viewer.Viewer) func(*sql.Selector) {
		return sql.FieldEQ(col, v.UserID)
	}
}

// underOwnConversation limits rows beneath a conversation (owner_id is the
// conversation's owner) like conversationOwner.
func underOwnConversation(v *viewer.Viewer) func(*sql.Selector) {
	if v.IsAdmin() {
		return nil
	}
	return sql.FieldEQ("owner_id", v.UserID)
}

// readableDocuments applies the document ACL to members; curators (admins,
// agents) see every document of the tenant.
func readableDocuments(v *viewer.Viewer) func(*sql.Selector) {
	if v.CanCurateKnowledge() {
		return nil
	}
	return DocumentReadableBy(v)
}

// chunksOfReadableDocuments applies the document ACL to chunks: a chunk
// is visible when its document is. chunk.HasDocument is answered by the
// edge predicate with the documents' own visibility (edgefilter: tenant,
// readableDocuments), so the ACL is stated once; naming it here as well
// would repeat it inside the same EXISTS (docs/ENGINE.md, "Privacy SQL,
// composed once").
func chunksOfReadableDocuments(v *viewer.Viewer) func(*sql.Selector) {
	if v.CanCurateKnowledge() {
		return nil
	}
	return chunk.HasDocument()
}

// grantsNamingViewer shows members only the grants that name them directly
// or through a group, on documents they can read.
func grantsNamingViewer(v *viewer.Viewer) func(*sql.Selector) {
	if v.CanCurateKnowledge() {
		return nil
	}
	return documentgrant.Or(principalIsViewer(v)...)
}

// adminsOnly hides the table from everyone but admins.
func adminsOnly(v *viewer.Viewer) func(*sql.Selector) {
	if v.IsAdmin() {
		return nil
	}
	return func(s *sql.Selector) { s.Where(sql.False()) }
}

// VisibleRows returns the predicate that limits table to the rows the actor
// in ctx may see: nil for system jobs (everything), a share scope's rows
// (share.go), nothing at all without a viewer, otherwise the viewer's
// tenant narrowed by the table's scope (with a support agent's active
// grants, support.go) and without rows of DELETED conversations.
func VisibleRows(ctx context.Context, table string) func(*sql.Selector) {
	if _, ok := viewer.SystemJob(ctx); ok {
		return nil
	}
	if sc := viewer.ShareScopeFrom(ctx); sc != nil {
		if p := shareRows(sc, table); p != nil {
			return p
		}
		return none
	}
	v := viewer.FromContext(ctx)
	if v == nil || v.TenantID == "" {
		return func(s *sql.Selector) { s.Where(sql.False()) }
	}
	if table == tenant.Table {
		return sql.FieldEQ(tenant.FieldID, v.TenantID)
	}
	sc, ok := scopes[table]
	if !ok {
		// A table without a declared scope is invisible, never open.
		return func(s *sql.Selector) { s.Where(sql.False()) }
	}
	preds := []func(*sql.Selector){sql.FieldEQ("tenant_id", v.TenantID)}
	if extra := readScope(ctx, v, table, sc); extra != nil {
		preds = append(preds, extra)
	}
	if live := notDeleted(ctx, table); live != nil {
		preds = append(preds, live)
	}
	return func(s *sql.Selector) {
		for _, p := range preds {
			p(s)
		}
	}
}

func init() {
	edgefilter.Register(func(s *sql.Selector, table string) {
		if p := VisibleRows(s.Context(), table); p != nil {
			p(s)
		}
	})
}
