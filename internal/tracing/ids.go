package tracing

import (
	"context"
	"crypto/rand"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Propagator is the W3C trace-context propagator (the traceparent and
// tracestate headers) that ragchat reads incoming traces with.
func Propagator() propagation.TextMapPropagator { return propagation.TraceContext{} }

type traceIDKey struct{}

// WithTraceID returns ctx in which a root span started by Setup's provider
// takes trace id id instead of a random one. The server chooses the id of
// each request this way before any span starts, so that the Trace-Id
// header and the log lines name the trace. A span with a parent keeps its
// parent's trace id.
func WithTraceID(ctx context.Context, id trace.TraceID) context.Context {
	return context.WithValue(ctx, traceIDKey{}, id)
}

// NewTraceID returns a random, valid W3C trace id.
func NewTraceID() trace.TraceID {
	for {
		var id trace.TraceID
		_, _ = rand.Read(id[:])
		if id.IsValid() {
			return id
		}
	}
}

// TraceIDOf returns the trace id ctx's spans belong to: the id of the
// span (or remote parent) in ctx when valid, else the one WithTraceID
// chose, else false.
func TraceIDOf(ctx context.Context) (trace.TraceID, bool) {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		return sc.TraceID(), true
	}
	id, ok := ctx.Value(traceIDKey{}).(trace.TraceID)
	return id, ok && id.IsValid()
}

// idGenerator gives a root span the trace id WithTraceID chose, and
// random ids otherwise.
type idGenerator struct{}

// NewIDs implements sdktrace.IDGenerator.
func (g idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	id, ok := ctx.Value(traceIDKey{}).(trace.TraceID)
	if !ok || !id.IsValid() {
		id = NewTraceID()
	}
	return id, g.NewSpanID(ctx, id)
}

// NewSpanID implements sdktrace.IDGenerator.
func (idGenerator) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	for {
		var id trace.SpanID
		_, _ = rand.Read(id[:])
		if id.IsValid() {
			return id
		}
	}
}
