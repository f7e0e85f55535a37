package chat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

type traceKey struct{}

// WithTraceID returns a context carrying the request's trace id, which the
// engine stores on the messages and attempts the request creates. (Log
// records get the trace id from the server's logger, not from here.)
func WithTraceID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, traceKey{}, id)
}

// traceID returns ctx's trace id, or, when ctx has none, a new random one
// on each call.
func traceID(ctx context.Context) string {
	if id, ok := ctx.Value(traceKey{}).(string); ok && id != "" {
		return id
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
