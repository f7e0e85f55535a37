package server

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/ragchat/ragchat/internal/tracing"
)

type traceKey struct{}

// WithTraceID returns ctx carrying trace id id.
func WithTraceID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, traceKey{}, id)
}

// withTrace sets the trace id for the server's logs. (The engine reads the
// request's trace from ctx's span or tracing.WithTraceID, which the
// callers set to the same id.)
func withTrace(ctx context.Context, id string) context.Context {
	return WithTraceID(ctx, id)
}

// TraceID returns the trace id of ctx ("" when none).
func TraceID(ctx context.Context) string {
	id, _ := ctx.Value(traceKey{}).(string)
	return id
}

// NewTraceID returns a random 16-byte trace id in hex (the W3C trace-id
// format).
func NewTraceID() string { return tracing.NewTraceID().String() }

// NewLogger returns a JSON logger at level that adds the trace id of the
// context to every record logged with a context.
func NewLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})
	return slog.New(traceHandler{h})
}

// traceHandler adds trace_id from the record's context.
type traceHandler struct{ slog.Handler }

// Handle implements slog.Handler.
func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := TraceID(ctx); id != "" {
		r.AddAttrs(slog.String("trace_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h traceHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return traceHandler{h.Handler.WithAttrs(attrs)}
}

// WithGroup implements slog.Handler.
func (h traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{h.Handler.WithGroup(name)}
}

// statusRecorder remembers the response status for the access log. It
// forwards Flush and Hijack (SSE and WebSocket need them) via Unwrap, which
// http.ResponseController follows.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	return n, err
}

// Flush implements http.Flusher (gqlgen's SSE transport asserts it).
func (s *statusRecorder) Flush() {
	_ = http.NewResponseController(s.ResponseWriter).Flush()
}

// Hijack implements http.Hijacker (the WebSocket upgrade needs it).
func (s *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if s.status == 0 {
		s.status = http.StatusSwitchingProtocols
	}
	return http.NewResponseController(s.ResponseWriter).Hijack()
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// accessLog assigns each request a trace id (from traceparent when valid,
// which also becomes the parent of the request's operation spans),
// echoes it in the Trace-Id response header and logs one line per request:
// method, path, status, bytes and duration. It never logs bodies.
func accessLog(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx, id := requestTrace(r)
		w.Header().Set("Trace-Id", id)
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r.WithContext(ctx))
		if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || r.URL.Path == "/metrics" {
			return
		}
		log.LogAttrs(ctx, slog.LevelInfo, "http request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", rec.status),
			slog.Int64("bytes", rec.bytes),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
		)
	})
}
