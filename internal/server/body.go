package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// bodyReadTimeout bounds reading one request body.
const bodyReadTimeout = 30 * time.Second

// writeGraphQLError writes a GraphQL-shaped error response with an HTTP
// status: {"errors":[{"message":…,"extensions":{"code":…}}]}.
func writeGraphQLError(w http.ResponseWriter, status int, code domain.Code, msg string, ext map[string]any) {
	e := gqlErr(code, msg, ext)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []any{e}})
}

// bodyLimits guards POST bodies of the GraphQL endpoint: it caps their
// size, rejects anything but a JSON object or array with a coded error
// (gqlgen's own errors carry no code, and would echo the body into the
// log), and runs a JSON array as a batch of at most maxBatch operations,
// answering with the array of their responses. Batches cannot stream, so
// an SSE request must be a single operation. A multipart/form-data body
// (the GraphQL multipart request spec, uploadAttachment) is the one
// exception: it is capped at maxUpload and handed to gqlgen's multipart
// transport unread. Only a signed-in viewer may upload: an anonymous
// multipart request is refused (401, UNAUTHENTICATED) before a byte of its
// body is read, as POST /files refuses it.
func bodyLimits(maxBody, maxBatch, maxUpload int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		if isMultipart(r) {
			if viewer.FromContext(r.Context()) == nil {
				w.Header().Set("WWW-Authenticate", "Bearer")
				writeGraphQLError(w, http.StatusUnauthorized, domain.CodeUnauthenticated, authenticationRequired, nil)
				return
			}
			if r.ContentLength > int64(maxUpload) {
				tooLarge(w, maxUpload)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, int64(maxUpload))
			next.ServeHTTP(w, r)
			return
		}
		// A slow client gets bodyReadTimeout to send its body; the
		// deadline is lifted before the operation runs (SSE streams on).
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(bodyReadTimeout))
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(maxBody)))
		_ = rc.SetReadDeadline(time.Time{})
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				writeGraphQLError(w, http.StatusRequestEntityTooLarge, domain.CodeBadUserInput,
					fmt.Sprintf("the request body exceeds %d bytes", maxBody), map[string]any{"limit": "bodySize", "max": maxBody})
				return
			}
			writeGraphQLError(w, http.StatusBadRequest, domain.CodeBadUserInput, "the request body could not be read", nil)
			return
		}
		trimmed := bytes.TrimSpace(body)
		switch {
		case len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed):
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			next.ServeHTTP(w, r)
		case len(trimmed) > 0 && trimmed[0] == '[' && !strings.Contains(r.Header.Get("Accept"), "text/event-stream"):
			runBatch(w, r, trimmed, maxBatch, next)
		default:
			writeGraphQLError(w, http.StatusBadRequest, domain.CodeBadUserInput,
				"the request body must be a JSON object {query, variables, operationName, extensions} or an array of them", nil)
		}
	})
}

// runBatch runs each operation of a batch through next, in order, and
// writes the array of their responses.
func runBatch(w http.ResponseWriter, r *http.Request, body []byte, maxBatch int, next http.Handler) {
	var ops []json.RawMessage
	if err := json.Unmarshal(body, &ops); err != nil || len(ops) == 0 {
		writeGraphQLError(w, http.StatusBadRequest, domain.CodeBadUserInput, "a batch must be a non-empty JSON array of operations", nil)
		return
	}
	if len(ops) > maxBatch {
		writeGraphQLError(w, http.StatusBadRequest, domain.CodeBadUserInput,
			fmt.Sprintf("a batch holds at most %d operations", maxBatch), map[string]any{"limit": "batch", "max": maxBatch})
		return
	}
	out := make([]json.RawMessage, len(ops))
	for i, op := range ops {
		if len(bytes.TrimSpace(op)) == 0 || bytes.TrimSpace(op)[0] != '{' {
			out[i] = mustJSON(map[string]any{"errors": []any{gqlErr(domain.CodeBadUserInput, "each batch item must be a JSON object", nil)}})
			continue
		}
		sub := r.Clone(r.Context())
		sub.Body = io.NopCloser(bytes.NewReader(op))
		sub.ContentLength = int64(len(op))
		rec := &bufferWriter{header: http.Header{}}
		next.ServeHTTP(rec, sub)
		resp := bytes.TrimSpace(rec.buf.Bytes())
		if !json.Valid(resp) {
			resp = mustJSON(map[string]any{"errors": []any{gqlErr(domain.CodeInternal, "internal error", nil)}})
		}
		out[i] = resp
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// bufferWriter is an http.ResponseWriter that keeps the response in memory.
type bufferWriter struct {
	header http.Header
	status int
	buf    bytes.Buffer
}

func (b *bufferWriter) Header() http.Header { return b.header }

func (b *bufferWriter) Write(p []byte) (int, error) { return b.buf.Write(p) }

func (b *bufferWriter) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}
