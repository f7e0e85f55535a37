package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/readaudit"
)

// OperationScope returns the gqlgen handler extension that scopes the
// resolvers' per-operation state: it gives each GraphQL operation its
// source re-authorisation cache and its read-audit scope, writes the
// operation's audit events after each of its responses (one per
// conversation an admin read, however many rows; a subscription's events
// as they stream), and gives each root field the deleted-rows scope in
// which the engine may show DELETED conversations. The server installs it
// once.
func (r *Resolver) OperationScope() graphql.HandlerExtension { return operationScope{r} }

type operationScope struct{ r *Resolver }

var (
	_ graphql.OperationInterceptor = operationScope{}
	_ graphql.RootFieldInterceptor = operationScope{}
)

// ExtensionName implements graphql.HandlerExtension.
func (operationScope) ExtensionName() string { return "RagchatOperationScope" }

// Validate implements graphql.HandlerExtension.
func (operationScope) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptOperation implements graphql.OperationInterceptor.
func (s operationScope) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	ctx = WithOperationState(ctx)
	handle := next(ctx)
	return func(rctx context.Context) *graphql.Response {
		resp := handle(rctx)
		readaudit.Flush(ctx)
		return resp
	}
}

// InterceptRootField implements graphql.RootFieldInterceptor. Each root
// field gets a deleted-rows scope of its own (authz.WithDeletedScope): a
// root field's context is the context of its whole subtree, so when the
// engine decides that the field shows DELETED conversations (an admin's
// adminConversations(where: {status: DELETED})), their messages, attempts
// and the rest show too.
func (s operationScope) InterceptRootField(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	return next(authz.WithDeletedScope(ctx))
}

// withReadAudit is the read-audit scope of WithOperationState.
func withReadAudit(ctx context.Context) context.Context { return readaudit.WithScope(ctx) }
