package history

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/tracing"
)

// startSpan starts one of Build's step spans, a no-op one when the
// assembler has no tracer.
func (a *Assembler) startSpan(ctx context.Context, name string) (context.Context, trace.Span) {
	t := a.Tracer
	if t == nil {
		t = tracing.Tracer(nil)
	}
	return t.Start(ctx, name)
}

// endSpan ends span, marking it failed when err is not nil. The error's
// text is not recorded: it may quote what the model or the user wrote.
func endSpan(span trace.Span, err error) {
	if err != nil {
		span.SetStatus(codes.Error, "failed")
	}
	span.End()
}

// manifestAttributes are the counts of an assembled prompt: tokens per
// section, the budget, and how many sources it carried.
func manifestAttributes(m *domain.ContextManifest, sources int) []attribute.KeyValue {
	t := m.Tokens
	return []attribute.KeyValue{
		tracing.TokensSystem.Int(t.System), tracing.TokensQuestion.Int(t.Question),
		tracing.TokensEvidence.Int(t.Evidence), tracing.TokensHistory.Int(t.History),
		tracing.TokensSummary.Int(t.Summary), tracing.TokensFraming.Int(t.Framing),
		tracing.TokensTotal.Int(t.Total), tracing.TokensBudget.Int(m.Budget),
		tracing.Sources.Int(sources), tracing.HistoryRounds.Int(m.HistoryRounds),
	}
}
