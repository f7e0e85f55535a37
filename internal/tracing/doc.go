// Package tracing is ragchat's OpenTelemetry tracing: a tracer provider
// built from the standard OTEL_* environment variables (Setup), exporting
// over OTLP/HTTP with protobuf, or a no-op provider when no exporter is
// configured; the W3C trace-context propagator; trace ids chosen before a
// span starts (WithTraceID), so that the Trace-Id header, the logs and the
// attempt's traceId name the trace the spans belong to; and the attribute
// keys the server and the engine put on spans. Attributes carry ids and
// counts only, never conversation text, questions, answers or prompts
// (docs/API.md, "Traces").
package tracing
