// Package clientaddr carries the network address of the client that made
// a request, through a context.Context, from the HTTP server to the
// engine code that meters per client (internal/sharing). The server takes
// it from the connection's remote address only: forwarding headers are
// not trusted, because ragchat has no trusted-proxy configuration.
package clientaddr

import (
	"context"
	"net"
	"net/http"
)

type key struct{}

// NewContext returns a copy of parent carrying addr.
func NewContext(parent context.Context, addr string) context.Context {
	return context.WithValue(parent, key{}, addr)
}

// FromContext returns the client address in ctx, or "" when there is none.
func FromContext(ctx context.Context) string {
	a, _ := ctx.Value(key{}).(string)
	return a
}

// FromRequest returns the host part of r's remote address (the whole
// remote address when it has no port).
func FromRequest(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Middleware puts each request's client address (FromRequest) into its
// context.
func Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(NewContext(r.Context(), FromRequest(r))))
	})
}
