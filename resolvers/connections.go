package resolvers

import (
	"context"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/adminreport"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Cursor is the Relay cursor of every connection (UUID keyed).
type Cursor = entgql.Cursor[uuid.UUID]

// ownConversations pages the viewer's own conversations, DELETED ones and
// temporary chats excluded (a temporary chat is never listed),
// most recently updated first unless orderBy says otherwise. Admins list
// other users' conversations with adminConversations.
func (r *Resolver) ownConversations(ctx context.Context, after *Cursor, first *int, before *Cursor, last *int, orderBy *ent.ConversationOrder, where *ent.ConversationWhereInput) (*ent.ConversationConnection, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	if orderBy == nil {
		orderBy = &ent.ConversationOrder{Direction: entgql.OrderDirectionDesc, Field: ent.ConversationOrderFieldUpdatedAt}
	}
	return r.client.Conversation.Query().
		Where(conversation.UserID(v.UserID), conversation.StatusNEQ(conversation.StatusDELETED), authz.NotTemporary()).
		Paginate(ctx, after, first, before, last,
			ent.WithConversationOrder(orderBy), ent.WithConversationFilter(r.statusFilter(where).Filter))
}

// knowledgeBases pages the tenant's knowledge bases.
func (r *Resolver) knowledgeBases(ctx context.Context, after *Cursor, first *int, before *Cursor, last *int, orderBy *ent.KnowledgeBaseOrder, where *ent.KnowledgeBaseWhereInput) (*ent.KnowledgeBaseConnection, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	return r.client.KnowledgeBase.Query().Paginate(ctx, after, first, before, last,
		ent.WithKnowledgeBaseOrder(orderBy), ent.WithKnowledgeBaseFilter(where.Filter))
}

// supportGrants pages the grants the viewer may see (Ent privacy decides
// which), newest first by default.
func (r *Resolver) supportGrants(ctx context.Context, after *Cursor, first *int, before *Cursor, last *int, orderBy *ent.SupportGrantOrder, where *ent.SupportGrantWhereInput) (*ent.SupportGrantConnection, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	if orderBy == nil {
		orderBy = &ent.SupportGrantOrder{Direction: entgql.OrderDirectionDesc, Field: ent.SupportGrantOrderFieldCreatedAt}
	}
	return r.client.SupportGrant.Query().Paginate(ctx, after, first, before, last,
		ent.WithSupportGrantOrder(orderBy), ent.WithSupportGrantFilter(where.Filter))
}

// auditEvents pages the tenant's audit events for admins, newest first by
// default.
func (r *Resolver) auditEvents(ctx context.Context, after *Cursor, first *int, before *Cursor, last *int, orderBy *ent.AuditEventOrder, where *ent.AuditEventWhereInput) (*ent.AuditEventConnection, error) {
	q, err := adminreport.AuditEvents(ctx, r.client)
	if err != nil {
		return nil, err
	}
	if orderBy == nil {
		orderBy = &ent.AuditEventOrder{Direction: entgql.OrderDirectionDesc, Field: ent.AuditEventOrderFieldAt}
	}
	return q.Paginate(ctx, after, first, before, last,
		ent.WithAuditEventOrder(orderBy), ent.WithAuditEventFilter(where.Filter))
}

// withoutUncountedPageInfo avoids a COUNT over the whole conversation when
// the client did not ask for totalCount. entgql's Paginate counts every
// row whenever pageInfo or totalCount is selected, although the page's
// limit+1 row already tells whether there is a previous or next page; on a
// long conversation that count costs more than the page itself. When
// totalCount is not selected, Paginate gets a field context without
// pageInfo (fragments flattened), so it skips the count and still fills
// PageInfo from the extra row; the response is marshalled from the
// original field context, pageInfo included.
func withoutUncountedPageInfo(ctx context.Context) context.Context {
	fc := graphql.GetFieldContext(ctx)
	oc := graphql.GetOperationContext(ctx)
	if fc == nil || oc == nil {
		return ctx
	}
	fields := graphql.CollectFields(oc, fc.Field.Selections, nil)
	var kept ast.SelectionSet
	for _, f := range fields {
		switch f.Name {
		case "totalCount":
			return ctx // counted on purpose
		case "pageInfo":
			continue
		}
		kept = append(kept, f.Field)
	}
	if len(kept) == len(fields) {
		return ctx
	}
	trimmed := *fc
	trimmed.Field.Selections = kept
	return graphql.WithFieldContext(ctx, &trimmed)
}
