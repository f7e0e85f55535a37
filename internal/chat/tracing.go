package chat

import (
	"context"

	"entgo.io/ent/dialect"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/tracing"
)

// Span names of an ask (internal/tracing/README.md). The first three run in
// the ask's request, as children of its operation span; ask.answer is the
// background run, a child of the same operation span, and the parent of
// the others (ask.window, ask.rewrite and ask.assemble come from
// internal/chat/history).
const (
	spanLoad      = "ask.load"
	spanAuthorise = "ask.authorise"
	spanCreate    = "ask.create"
	spanAnswer    = "ask.answer"
	spanRetrieve  = "ask.retrieve"
	spanModel     = "ask.model"
	spanStream    = "ask.stream"
	spanComplete  = "ask.complete"
)

// startSpan starts an ask step's span with attrs (ids and counts only),
// which a span that records nothing (tracing off, or sampled out) does
// not keep.
func (e *Engine) startSpan(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	ctx, span := e.tracer.Start(ctx, name)
	if len(attrs) > 0 && span.IsRecording() {
		span.SetAttributes(attrs...)
	}
	return ctx, span
}

// endSpan ends an ask step's span; err marks it failed with its error
// code (domain or failure code), never the error's text, which may quote
// the model or the user.
func endSpan(span trace.Span, err error) {
	failSpan(span, err)
	span.End()
}

// failSpan marks span failed when err is not nil (see endSpan).
func failSpan(span trace.Span, err error) {
	if err != nil && span.IsRecording() {
		code := string(domain.ErrorCode(err))
		span.SetAttributes(tracing.ErrorCode.String(code))
		span.SetStatus(codes.Error, code)
	}
}

// jobAttributes are the ids of j's attempt.
func jobAttributes(j job) []attribute.KeyValue {
	return []attribute.KeyValue{
		tracing.AttemptID.String(j.att.ID.String()),
		tracing.ConversationID.String(j.conv.ID.String()),
		tracing.MessageID.String(j.msg.ID.String()),
	}
}

// retrieveStatement names the retrieval's statement for the ask.retrieve
// span: the pgvector nearest-neighbour query on PostgreSQL, the scan of
// the readable chunks on SQLite (internal/knowledge).
func (e *Engine) retrieveStatement() string {
	if e.db.Dialect == dialect.Postgres {
		return "knowledge.nearest_chunks"
	}
	return "knowledge.scan_chunks"
}

// streamOrModel is the stream span once it started, else the model span.
func streamOrModel(stream, model trace.Span) trace.Span {
	if stream != nil {
		return stream
	}
	return model
}
