package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/store"
)

// The helpers of Conversation.currentPath (messagetree.resolvers.go), which
// reads the current branch through internal/chat/tree.

// defaultPathPage is currentPath's page without first or last: the last
// 20 messages of the branch, like the server's default page size
// (server.DefaultPageSize), which pages the other connections forward.
const defaultPathPage = 20

// pathMessage reads the id, parent and depth of one message of the
// conversation, through the privacy policies; nil (no error) when the
// viewer may not read it or it does not exist.
func (r *Resolver) pathMessage(ctx context.Context, conversationID, id uuid.UUID) (*ent.Message, error) {
	m, err := r.client.Message.Query().
		Where(message.ID(id), message.ConversationID(conversationID)).
		Select(message.FieldID, message.FieldConversationID, message.FieldParentID, message.FieldDepth).
		Only(ctx)
	if store.Classify(err) == store.ClassNotFound {
		return nil, nil
	}
	return m, err
}

// validatePage refuses negative page sizes as the paginator does (the
// server refuses pages over its maximum before the operation runs).
func validatePage(first, last *int) error {
	if first != nil && *first < 0 {
		return badInput("first", "first must be a non-negative number")
	}
	if last != nil && *last < 0 {
		return badInput("last", "last must be a non-negative number")
	}
	return nil
}

// onlyEdges hides totalCount and pageInfo from the paginator, which
// would count the rows of the window; currentPath computes both.
func onlyEdges(ctx context.Context) context.Context {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !graphql.HasOperationContext(ctx) {
		return ctx
	}
	oc := graphql.GetOperationContext(ctx)
	var kept ast.SelectionSet
	for _, f := range graphql.CollectFields(oc, fc.Field.Selections, nil) {
		if f.Name != "totalCount" && f.Name != "pageInfo" {
			kept = append(kept, f.Field)
		}
	}
	trimmed := *fc
	trimmed.Field.Selections = kept
	return graphql.WithFieldContext(ctx, &trimmed)
}
