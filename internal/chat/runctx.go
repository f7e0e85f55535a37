package chat

import (
	"context"

	"github.com/ragchat/ragchat/internal/authz"
)

// runContext is the context an attempt's background run starts from: the
// request's viewer and trace id, with rows of deleted conversations
// visible. Deleting a conversation cancels its run, and the run must still
// record how its attempt ended (FAILED, CANCELLED) on rows that readers no
// longer see; it never returns them to a client.
func runContext(ctx context.Context) context.Context {
	return authz.IncludeDeleted(ctx)
}
