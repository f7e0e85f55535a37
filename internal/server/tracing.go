package server

import (
	"context"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragchat/ragchat/internal/tracing"
)

// requestTrace returns r's context with the request's trace: the incoming
// W3C traceparent (on POST, GET and SSE requests alike) as the remote
// parent of the request's spans, or a new trace id that the request's
// root spans take (tracing.WithTraceID). The id, in hex, is what the logs,
// the Trace-Id header and the attempts the request creates carry.
func requestTrace(r *http.Request) (context.Context, string) {
	ctx := tracing.Propagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	id, ok := tracing.TraceIDOf(ctx)
	if !ok {
		id = tracing.NewTraceID()
		ctx = tracing.WithTraceID(ctx, id)
	}
	return withTrace(ctx, id.String()), id.String()
}

type connTraceKey struct{}

// withConnTrace keeps the trace parent of a WebSocket's connection_init
// payload on the connection's context: a "traceparent" entry (and
// "tracestate"), or the same inside a "headers" object, as clients that
// send their HTTP headers in the payload do. Every operation on the
// connection then continues that trace (operationTrace).
func withConnTrace(ctx context.Context, payload transport.InitPayload) context.Context {
	carrier := propagation.MapCarrier{}
	pick := func(m map[string]any) {
		for _, k := range []string{"traceparent", "tracestate"} {
			if v, ok := m[k].(string); ok && carrier[k] == "" {
				carrier[k] = v
			}
		}
	}
	pick(payload)
	if h, ok := payload["headers"].(map[string]any); ok {
		pick(h)
	}
	if carrier["traceparent"] == "" {
		return ctx
	}
	sc := trace.SpanContextFromContext(tracing.Propagator().Extract(context.Background(), carrier))
	if !sc.IsValid() {
		return ctx
	}
	return context.WithValue(ctx, connTraceKey{}, sc)
}

// operationTrace gives an operation on a WebSocket its trace: the
// connection_init payload's parent when it had one, else a trace of its
// own (the upgrade request's trace names the connection, not its
// operations).
func operationTrace(ctx context.Context) context.Context {
	if sc, ok := ctx.Value(connTraceKey{}).(trace.SpanContext); ok {
		return withTrace(trace.ContextWithRemoteSpanContext(ctx, sc), sc.TraceID().String())
	}
	id := tracing.NewTraceID()
	ctx = trace.ContextWithSpanContext(ctx, trace.SpanContext{})
	return withTrace(tracing.WithTraceID(ctx, id), id.String())
}

// startOperationSpan starts the span of a GraphQL operation,
// "graphql.operation <type> <name>" (the name left out when anonymous),
// with the operation's type and name as attributes (never its document or
// variables). When the span's trace id is not the one the request chose
// (a provider other than tracing.Setup's), the span's wins, so that the
// attempts the operation creates name its trace.
func (s *Server) startOperationSpan(ctx context.Context, op *graphql.OperationContext, kind string) (context.Context, trace.Span) {
	name := ""
	if op != nil {
		name = op.OperationName
		if name == "" && op.Operation != nil {
			name = op.Operation.Name
		}
	}
	spanName := "graphql.operation " + kind
	if name != "" {
		spanName += " " + name
	}
	ctx, span := s.tracer.Start(ctx, spanName, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(tracing.OperationType.String(kind), tracing.OperationName.String(name)))
	if sc := span.SpanContext(); sc.IsValid() && sc.TraceID().String() != TraceID(ctx) {
		ctx = withTrace(ctx, sc.TraceID().String())
	}
	return ctx, span
}

// endOperationSpan ends an operation's span with its response's first
// error code, if any.
func endOperationSpan(span trace.Span, resp *graphql.Response) {
	if resp != nil && len(resp.Errors) > 0 {
		code, _ := resp.Errors[0].Extensions["code"].(string)
		if code == "" {
			code = "NONE"
		}
		span.SetAttributes(tracing.ErrorCode.String(code), tracing.ErrorCount.Int(len(resp.Errors)))
		span.SetStatus(codes.Error, code)
	}
	span.End()
}
