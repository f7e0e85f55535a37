package server

import (
	"context"
	"errors"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/ragchat/ragchat/internal/authwatch"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// msgSuperseded is the error a subscription ends with when its token was
// superseded.
const msgSuperseded = "a newer token of this user carries other roles or groups: subscribe again with it"

// noticingVerifier tells the viewers registry of every token it accepts,
// so that a newer token with other roles or groups ends the streams of
// the older ones (authwatch.Viewers.Seen).
type noticingVerifier struct {
	TokenVerifier
	viewers *authwatch.Viewers
}

// Verify implements TokenVerifier.
func (n noticingVerifier) Verify(ctx context.Context, token string) (*viewer.Viewer, error) {
	v, err := n.TokenVerifier.Verify(ctx, token)
	if err == nil {
		n.viewers.Seen(ctx, v)
	}
	return v, err
}

// holdSubscription runs a subscription under a context that ends when a
// newer token of the viewer's user with other roles or groups is seen on
// any replica (authwatch.Viewers.Hold). The subscription then ends with
// one last response, the error FORBIDDEN, and completes (an event being
// resolved at that moment is dropped); on WebSocket the connection stays
// open (docs/API.md, "Role and group changes").
func (s *Server) holdSubscription(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	v := viewer.FromContext(ctx)
	if s.viewers == nil || v == nil {
		return next(ctx)
	}
	held, release := s.viewers.Hold(ctx, v)
	if errors.Is(context.Cause(held), authwatch.ErrSuperseded) {
		release()
		return graphql.OneShot(superseded())
	}
	handle := next(held)
	var (
		mu    sync.Mutex
		ended bool
	)
	return func(rctx context.Context) *graphql.Response {
		mu.Lock()
		done := ended
		mu.Unlock()
		if done {
			return nil
		}
		for {
			resp := handle(rctx)
			cut := errors.Is(context.Cause(held), authwatch.ErrSuperseded)
			switch {
			case resp != nil && !cut:
				return resp
			case resp != nil:
				continue // an event cut short (or shown to a superseded token): dropped
			}
			mu.Lock()
			ended = true
			mu.Unlock()
			release()
			if !cut {
				return nil
			}
			return superseded()
		}
	}
}

// superseded is the last response of a subscription whose token was
// superseded.
func superseded() *graphql.Response {
	return &graphql.Response{Errors: gqlerror.List{gqlErr(domain.CodeForbidden, msgSuperseded, nil)}}
}
