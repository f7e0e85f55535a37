package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/ragchat/ragchat/internal/auth"
	"github.com/ragchat/ragchat/internal/ctxflag"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// CloseForbidden is the WebSocket close code for a refused connection_init
// (a missing, bad or expired token). graphql-ws clients treat 4403 as fatal
// and do not reconnect in a loop, unlike the 1000 gqlgen uses by default.
const CloseForbidden = 4403

// TokenVerifier verifies a bearer token and returns the viewer it names
// (*auth.Verifier).
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (*viewer.Viewer, error)
}

// authenticate builds the viewer of HTTP requests from their Authorization
// header. A request without one continues without a viewer (introspection
// works; every data field answers UNAUTHENTICATED); a malformed, bad or
// expired token is refused with 401 and code UNAUTHENTICATED.
func authenticate(verifier TokenVerifier, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header := r.Header.Get("Authorization")
		if header == "" {
			next.ServeHTTP(w, r)
			return
		}
		v, err := verifyHeader(r.Context(), verifier, header)
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			writeGraphQLError(w, http.StatusUnauthorized, domain.CodeUnauthenticated, domain.ErrorMessage(err), nil)
			return
		}
		next.ServeHTTP(w, r.WithContext(viewer.NewContext(r.Context(), v)))
	})
}

// verifyHeader verifies an "Authorization: Bearer <token>" value.
func verifyHeader(ctx context.Context, verifier TokenVerifier, header string) (*viewer.Viewer, error) {
	token, ok := auth.BearerToken(header)
	if !ok {
		return nil, domain.Errorf(domain.CodeUnauthenticated, "malformed Authorization header: want \"Bearer <token>\"")
	}
	v, err := verifier.Verify(ctx, token)
	if err != nil {
		var de *domain.Error
		if !errors.As(err, &de) {
			err = domain.Wrap(err, domain.CodeUnauthenticated, "invalid token")
		}
		return nil, err
	}
	return v, nil
}

// wsInit authenticates a WebSocket connection from its connection_init
// payload ("Authorization": "Bearer <token>"), falling back to the upgrade
// request's header. Without a valid token the connection closes with 4403.
// A traceparent in the payload is the parent of the connection's
// operation spans (withConnTrace).
// The connection's context gets the viewer and a subscription counter, and
// ends when the token expires.
func wsInit(verifier TokenVerifier) transport.WebsocketInitFunc {
	return func(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
		var v *viewer.Viewer
		if header := payload.Authorization(); header != "" {
			var err error
			if v, err = verifyHeader(ctx, verifier, header); err != nil {
				return refuseWS(ctx, domain.ErrorMessage(err))
			}
		} else if v = viewer.FromContext(ctx); v == nil {
			return refuseWS(ctx, "missing token")
		}
		ctx = viewer.NewContext(ctx, v)
		ctx = ctxflag.Set[wsConnKey](ctx)
		ctx = withConnTrace(ctx, payload)
		if !v.ExpiresAt.IsZero() {
			// The connection ends when its token does; the client reconnects
			// with a fresh token (an expired one is refused with 4403).
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, v.ExpiresAt)
			// releaseConn stops the deadline's timer when the connection
			// ends before the token expires; otherwise the timer kept the
			// connection's context (viewer and all) until the expiry.
			ctx = context.WithValue(ctx, wsReleaseKey{}, cancel)
		}
		return withConnSubs(ctx), nil, nil
	}
}

type wsReleaseKey struct{}

// releaseConn releases what wsInit attached to a connection's context (its
// token-expiry timer); call it once the connection has ended.
func releaseConn(ctx context.Context) {
	if release, ok := ctx.Value(wsReleaseKey{}).(context.CancelFunc); ok {
		release()
	}
}

type wsConnKey struct{}

// overWebSocket reports whether ctx belongs to a WebSocket connection.
func overWebSocket(ctx context.Context) bool {
	return ctxflag.IsSet[wsConnKey](ctx)
}

// refuseWS makes gqlgen close the connection with 4403 and reason.
func refuseWS(ctx context.Context, reason string) (context.Context, *transport.InitPayload, error) {
	msg := "Forbidden: " + reason
	ctx = transport.WithWebsocketCloseCode(ctx, CloseForbidden)
	ctx = transport.AppendCloseReason(ctx, truncateCloseReason(msg))
	return ctx, nil, errors.New(msg)
}
