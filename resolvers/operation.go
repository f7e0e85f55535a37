package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/viewer"
)

// OperationScope returns the gqlgen handler extension that scopes the
// resolvers' per-operation state: it gives each GraphQL operation its
// source re-authorisation cache and its read-audit scope, writes the
// operation's audit events after each of its responses (one per
// conversation an admin read, however many rows; a subscription's events
// as they stream), and makes DELETED conversations visible in the one
// query that lists them on purpose. The server installs it once.
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
		s.r.engine.FlushReadAudit(ctx)
		return resp
	}
}

// InterceptRootField implements graphql.RootFieldInterceptor. A root
// field's context is the context of its whole subtree, so the DELETED
// conversations adminConversations lists show their messages, attempts
// and the rest too.
func (s operationScope) InterceptRootField(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	if listsDeleted(ctx) {
		ctx = authz.IncludeDeleted(ctx)
	}
	return next(ctx)
}

// listsDeleted reports whether the root field in ctx is an admin's
// adminConversations(where: {status: DELETED}).
func listsDeleted(ctx context.Context) bool {
	fc := graphql.GetRootFieldContext(ctx)
	oc := graphql.GetOperationContext(ctx)
	if fc == nil || oc == nil || fc.Field.Field == nil || fc.Field.Name != "adminConversations" || !viewer.FromContext(ctx).IsAdmin() {
		return false
	}
	where, _ := fc.Field.ArgumentMap(oc.Variables)["where"].(map[string]any)
	status, _ := where["status"].(string)
	return status == conversation.StatusDELETED.String()
}

// withReadAudit is the read-audit scope of WithOperationState.
func withReadAudit(ctx context.Context) context.Context { return chat.WithReadAudit(ctx) }
