package resolvers

import (
	"context"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Cursor is the Relay cursor of every connection (UUID keyed).
type Cursor = entgql.Cursor[uuid.UUID]

// viewerModel describes the viewer in ctx.
func viewerModel(ctx context.Context) (*model.Viewer, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	roles := make([]model.Role, 0, len(v.Roles))
	for _, r := range v.Roles {
		switch r {
		case viewer.RoleMember:
			roles = append(roles, model.RoleMember)
		case viewer.RoleAgent:
			roles = append(roles, model.RoleAgent)
		case viewer.RoleAdmin:
			roles = append(roles, model.RoleAdmin)
		case viewer.RoleSupport:
			roles = append(roles, model.RoleSupport)
		}
	}
	groups := v.Groups
	if groups == nil {
		groups = []string{}
	}
	return &model.Viewer{
		TenantID:           v.TenantID,
		UserID:             v.UserID,
		Roles:              roles,
		Groups:             groups,
		IsAdmin:            v.IsAdmin(),
		CanCurateKnowledge: v.CanCurateKnowledge(),
	}, nil
}

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

// conversationMessages pages a conversation's messages, by sequence number
// unless orderBy says otherwise. Field collection loads the fields asked
// for beneath the page (attempts, sources, feedback) in one query each.
//
// The query is not DISTINCT: Ent makes every query reached through an
// edge SELECT DISTINCT, which on PostgreSQL reads and de-duplicates every
// message of the conversation (content included) before the LIMIT, about
// 30 ms for 10,000 messages, where the index on (conversation_id,
// sequence_no) serves the page in a fraction of a millisecond. A
// conversation's messages are rows of one table keyed by id, so there is
// nothing to de-duplicate.
func (r *Resolver) conversationMessages(ctx context.Context, c *ent.Conversation, after *Cursor, first *int, before *Cursor, last *int, orderBy *ent.MessageOrder, where *ent.MessageWhereInput) (*ent.MessageConnection, error) {
	if orderBy == nil {
		orderBy = &ent.MessageOrder{Direction: entgql.OrderDirectionAsc, Field: ent.MessageOrderFieldSequenceNo}
	}
	return c.QueryMessages().Unique(false).Paginate(withoutUncountedPageInfo(ctx), after, first, before, last,
		ent.WithMessageOrder(orderBy), ent.WithMessageFilter(where.Filter))
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

// loadAttempt loads one attempt the viewer may see, with field collection.
func (r *Resolver) loadAttempt(ctx context.Context, id uuid.UUID) (*ent.Attempt, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	q, err := r.client.Attempt.Query().Where(attempt.ID(id)).CollectFields(ctx)
	if err != nil {
		return nil, err
	}
	a, err := q.Only(ctx)
	return a, notFound(err, "attempt")
}

// loadConversation loads one conversation through the engine (which hides
// DELETED ones and audits an admin's cross-user read).
func (r *Resolver) loadConversation(ctx context.Context, id uuid.UUID) (*ent.Conversation, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	c, err := r.engine.Conversation(ctx, id)
	return c, notFound(err, "conversation")
}

// knowledgeBases pages the tenant's knowledge bases.
func (r *Resolver) knowledgeBases(ctx context.Context, after *Cursor, first *int, before *Cursor, last *int, orderBy *ent.KnowledgeBaseOrder, where *ent.KnowledgeBaseWhereInput) (*ent.KnowledgeBaseConnection, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	return r.client.KnowledgeBase.Query().Paginate(ctx, after, first, before, last,
		ent.WithKnowledgeBaseOrder(orderBy), ent.WithKnowledgeBaseFilter(where.Filter))
}
