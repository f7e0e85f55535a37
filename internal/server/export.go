package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
	"github.com/ragchat/ragchat/resolvers"
)

// Portability is the export and import service as the server sees it
// (*portability.Service): what the resolvers use, plus the bulk export.
type Portability interface {
	resolvers.Portability
	WriteJSONL(ctx context.Context, w io.Writer, flush func()) error
}

// bulkExport serves GET /export/conversations.jsonl: the JSON export of
// each of the viewer's own conversations, one per line (docs/API.md,
// "Export and import"). It needs a bearer token (401 UNAUTHENTICATED
// without one), streams with a flush after each conversation, and stops
// when the client goes away. An error before the first line is a JSON
// error response; after it, the stream just ends early.
func bulkExport(p Portability, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if viewer.FromContext(r.Context()) == nil {
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeGraphQLError(w, http.StatusUnauthorized, domain.CodeUnauthenticated, "a bearer token is required", nil)
			return
		}
		if p == nil {
			writeGraphQLError(w, http.StatusServiceUnavailable, domain.CodeUnavailable, "export is not available", nil)
			return
		}
		rc := http.NewResponseController(w)
		sw := &startedWriter{w: w}
		err := p.WriteJSONL(r.Context(), sw, func() { _ = rc.Flush() })
		switch {
		case err == nil:
			if !sw.started {
				sw.header()
			}
		case !sw.started && r.Context().Err() == nil:
			writeGraphQLError(w, http.StatusInternalServerError, domain.ErrorCode(err), domain.ErrorMessage(err), domain.ErrorDetails(err))
		case r.Context().Err() == nil && !errors.Is(err, context.Canceled):
			log.Warn("bulk export ended early", slog.String("error", err.Error()))
		}
	})
}

// startedWriter sets the stream's headers before its first byte.
type startedWriter struct {
	w       http.ResponseWriter
	started bool
}

// header writes the stream's headers and status.
func (s *startedWriter) header() {
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "application/x-ndjson; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="conversations.jsonl"`)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	s.w.WriteHeader(http.StatusOK)
}

// Write implements io.Writer.
func (s *startedWriter) Write(b []byte) (int, error) {
	if !s.started {
		s.header()
	}
	return s.w.Write(b)
}

// onlyGET answers anything but GET (and HEAD) with 405.
func onlyGET(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET")
			writeGraphQLError(w, http.StatusMethodNotAllowed, domain.CodeBadUserInput, "use GET", nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}
