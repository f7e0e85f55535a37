package tracing_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragchat/ragchat/internal/tracing"
)

// clearEnv unsets every variable Enabled and Setup read.
func clearEnv(t *testing.T) {
	for _, k := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_PROTOCOL",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		t.Setenv(k, "")
	}
}

// TestSetupFollowsTheEnvironment checks when Setup exports (an SDK
// provider) and when it is off (a no-op provider), and which settings it
// refuses.
func TestSetupFollowsTheEnvironment(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		enabled bool
		wantErr bool
	}{
		{name: "nothing set", env: nil},
		{name: "endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, enabled: true},
		{name: "traces endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, enabled: true},
		{name: "headers only", env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=b"}, enabled: true},
		{name: "exporter otlp", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, enabled: true},
		{name: "exporter none", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}},
		{name: "sdk disabled", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}},
		{name: "grpc refused", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, wantErr: true},
		{name: "traces protocol wins", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, enabled: true},
		{name: "other exporter refused", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			tp, shutdown, err := tracing.Setup(context.Background())
			if tc.wantErr {
				if err == nil {
					t.Fatal("Setup accepted the environment")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = shutdown(context.Background()) }()
			_, isSDK := tp.(*sdktrace.TracerProvider)
			if isSDK != tc.enabled || tracing.Enabled() != tc.enabled {
				t.Errorf("provider %T, Enabled %v; want enabled %v", tp, tracing.Enabled(), tc.enabled)
			}
		})
	}
}

// TestRootSpansTakeTheChosenTraceID checks that a root span started by
// Setup's provider takes the trace id WithTraceID chose, and that a span
// with a parent keeps its parent's.
func TestRootSpansTakeTheChosenTraceID(t *testing.T) {
	clearEnv(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	// Sampled out: the spans still get their ids, and nothing is exported.
	t.Setenv("OTEL_TRACES_SAMPLER", "always_off")
	tp, shutdown, err := tracing.Setup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = shutdown(context.Background()) }()
	tr := tracing.Tracer(tp)
	id := tracing.NewTraceID()
	ctx, root := tr.Start(tracing.WithTraceID(context.Background(), id), "root")
	defer root.End()
	if root.SpanContext().TraceID() != id {
		t.Fatalf("root trace id %s, want %s", root.SpanContext().TraceID(), id)
	}
	got, ok := tracing.TraceIDOf(ctx)
	if !ok || got != id {
		t.Fatalf("TraceIDOf %s %v", got, ok)
	}
	other := tracing.NewTraceID()
	_, child := tr.Start(tracing.WithTraceID(ctx, other), "child")
	defer child.End()
	if child.SpanContext().TraceID() != id {
		t.Errorf("child left its parent's trace for the chosen id")
	}
	if _, ok := tracing.TraceIDOf(context.Background()); ok {
		t.Error("TraceIDOf found an id in an empty context")
	}
}

// TestNoopTracerKeepsTheIncomingTrace checks that with tracing off the
// trace id of an incoming parent is still what TraceIDOf reports.
func TestNoopTracerKeepsTheIncomingTrace(t *testing.T) {
	id := tracing.NewTraceID()
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: id, SpanID: trace.SpanID{1}, Remote: true})
	ctx, span := tracing.Tracer(nil).Start(trace.ContextWithRemoteSpanContext(context.Background(), sc), "op")
	defer span.End()
	if got, ok := tracing.TraceIDOf(ctx); !ok || got != id {
		t.Errorf("TraceIDOf %s %v, want %s", got, ok, id)
	}
}
