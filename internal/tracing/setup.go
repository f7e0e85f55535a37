package tracing

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// DefaultServiceName is the service.name of ragchat's spans when
// OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) sets
// none.
const DefaultServiceName = "ragchat"

// InstrumentationName names ragchat's tracers.
const InstrumentationName = "github.com/ragchat/ragchat"

// Enabled reports whether the environment asks for traces to be exported:
// OTEL_TRACES_EXPORTER is "otlp", or, with OTEL_TRACES_EXPORTER unset, any
// OTEL_EXPORTER_OTLP_* variable is set (an empty value counts as unset).
// OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn tracing off
// whatever else is set.
func Enabled() bool {
	if disabled, _ := strconv.ParseBool(os.Getenv("OTEL_SDK_DISABLED")); disabled {
		return false
	}
	switch strings.TrimSpace(strings.ToLower(os.Getenv("OTEL_TRACES_EXPORTER"))) {
	case "none":
		return false
	case "otlp":
		return true
	}
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "OTEL_EXPORTER_OTLP_") && value != "" {
			return true
		}
	}
	return false
}

// Setup returns the tracer provider the environment configures and the
// function that flushes and stops it (call it once, at shutdown). When
// tracing is off (Enabled) the provider is a no-op and shutdown does
// nothing. When on, spans are batched (OTEL_BSP_* tune the batches) and
// exported over OTLP/HTTP with protobuf; the exporter reads
// OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS, _TIMEOUT, _COMPRESSION
// and the TLS variables itself, the sampler comes from OTEL_TRACES_SAMPLER
// (default: parent-based, always on) and the resource from
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. Only the http/protobuf
// protocol is served: OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL set to another
// one, or OTEL_TRACES_EXPORTER naming another exporter, is an error.
//
// Setup sets no global: the caller passes the provider to the server and
// the engine.
func Setup(ctx context.Context) (trace.TracerProvider, func(context.Context) error, error) {
	off := func(context.Context) error { return nil }
	if err := checkEnv(); err != nil {
		return nil, off, err
	}
	if !Enabled() {
		return noop.NewTracerProvider(), off, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, off, fmt.Errorf("tracing: OTLP exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", DefaultServiceName)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, off, fmt.Errorf("tracing: resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(idGenerator{}),
	)
	return tp, tp.Shutdown, nil
}

// checkEnv refuses settings Setup cannot honour, so that a deployment
// that asks for them learns at start, not by missing traces.
func checkEnv() error {
	if disabled, _ := strconv.ParseBool(os.Getenv("OTEL_SDK_DISABLED")); disabled {
		return nil
	}
	switch v := strings.TrimSpace(strings.ToLower(os.Getenv("OTEL_TRACES_EXPORTER"))); v {
	case "", "none", "otlp":
	default:
		return fmt.Errorf("tracing: OTEL_TRACES_EXPORTER=%q is not supported (want otlp or none)", v)
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if v := strings.TrimSpace(os.Getenv(name)); v != "" {
			if v != "http/protobuf" {
				return fmt.Errorf("tracing: %s=%q is not supported (want http/protobuf)", name, v)
			}
			break
		}
	}
	return nil
}

// Tracer returns ragchat's tracer of tp, or a no-op tracer when tp is nil.
func Tracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	return tp.Tracer(InstrumentationName)
}
