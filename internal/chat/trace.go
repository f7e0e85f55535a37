package chat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

type traceKey struct{}

// WithTraceID returns a context carrying the request's trace id, which the
// engine stores on messages and attempts and logs with every event.
func WithTraceID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, traceKey{}, id)
}

// traceID returns ctx's trace id, or a new random one.
func traceID(ctx context.Context) string {
	if id, ok := ctx.Value(traceKey{}).(string); ok && id != "" {
		return id
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
