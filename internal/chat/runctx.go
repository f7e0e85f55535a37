package chat

import (
	"context"

	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/store"
)

// runContext is the context an attempt's background run starts from: the
// request's viewer and trace id, with rows of deleted conversations
// visible. Deleting a conversation cancels its run, and the run must still
// record how its attempt ended (FAILED, CANCELLED) on rows that readers no
// longer see; it never returns them to a client. The run's statements are
// not the request's: they leave the request's statement tally
// (store.WithStatementTally).
func runContext(ctx context.Context) context.Context {
	return store.WithoutStatementTally(authz.IncludeDeleted(ctx))
}
