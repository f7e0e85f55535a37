package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
	"github.com/ragchat/ragchat/resolvers"
)

// Attachments is what the server needs of conversation attachments: the
// resolvers' part (uploadAttachment, Conversation.attachments), which
// POST /files uses too.
type Attachments = resolvers.Attachments

// attachmentsShutdown is the part of the attachment service that
// Server.Shutdown stops: its processing pool (attachment.Service).
type attachmentsShutdown interface {
	Shutdown(ctx context.Context) error
}

// isMultipart reports whether r carries a multipart/form-data body.
func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// tooLarge writes the refusal of a body over max bytes.
func tooLarge(w http.ResponseWriter, max int) {
	writeGraphQLError(w, http.StatusRequestEntityTooLarge, domain.CodeBadUserInput,
		fmt.Sprintf("the request body exceeds %d bytes", max), map[string]any{"limit": "bodySize", "max": max})
}

// filesHandler serves POST /files, the upload for clients without the
// GraphQL multipart request spec: a multipart/form-data body with the
// fields conversationId and file. It answers 201 with
// {"id", "status", "mediaType", "size", "failureCode"} once the file is
// stored (status UPLOADED: its processing goes on in the background, and
// ATTACHMENT_UPDATED events report each state), or a GraphQL-shaped
// error with the same codes and extensions as uploadAttachment (429 with
// Retry-After for RATE_LIMITED, 503 with Retry-After for a full
// processing queue).
func filesHandler(svc Attachments, maxUpload int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			writeGraphQLError(w, http.StatusMethodNotAllowed, domain.CodeBadUserInput, "use POST", nil)
			return
		}
		if viewer.FromContext(r.Context()) == nil {
			writeGraphQLError(w, http.StatusUnauthorized, domain.CodeUnauthenticated, "sign in to upload files", nil)
			return
		}
		if !isMultipart(r) {
			writeGraphQLError(w, http.StatusUnsupportedMediaType, domain.CodeBadUserInput,
				"send multipart/form-data with the fields conversationId and file", nil)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, int64(maxUpload))
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				tooLarge(w, maxUpload)
				return
			}
			writeGraphQLError(w, http.StatusBadRequest, domain.CodeBadUserInput, "the form could not be read", nil)
			return
		}
		defer r.MultipartForm.RemoveAll()
		convID, err := uuid.Parse(strings.TrimSpace(r.FormValue("conversationId")))
		if err != nil {
			writeGraphQLError(w, http.StatusBadRequest, domain.CodeBadUserInput, "conversationId is not an id",
				map[string]any{"field": "conversationId"})
			return
		}
		f, hdr, err := r.FormFile("file")
		if err != nil {
			writeGraphQLError(w, http.StatusBadRequest, domain.CodeBadUserInput, "no file was sent", map[string]any{"field": "file"})
			return
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		if err != nil {
			writeGraphQLError(w, http.StatusBadRequest, domain.CodeBadUserInput, "the file could not be read", map[string]any{"field": "file"})
			return
		}
		a, err := svc.Upload(r.Context(), convID, hdr.Filename, data)
		if err != nil {
			var de *domain.Error
			if !errors.As(err, &de) {
				de = domain.Errorf(domain.CodeInternal, "internal error")
			}
			if secs, ok := de.Details["retryAfterSeconds"].(int); ok {
				w.Header().Set("Retry-After", strconv.Itoa(secs))
			}
			writeGraphQLError(w, uploadStatus(de.Code), de.Code, domain.ErrorMessage(de), de.Details)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": a.ID, "status": a.Status, "mediaType": a.MediaType, "size": a.Size, "failureCode": a.FailureCode,
		})
	})
}

// uploadStatuses are the HTTP statuses of upload errors by code.
var uploadStatuses = map[domain.Code]int{
	domain.CodeBadUserInput:    http.StatusBadRequest,
	domain.CodeNotFound:        http.StatusNotFound,
	domain.CodeUnauthenticated: http.StatusUnauthorized,
	domain.CodeForbidden:       http.StatusForbidden,
	domain.CodeUnavailable:     http.StatusServiceUnavailable,
	domain.CodeRateLimited:     http.StatusTooManyRequests,
}

// uploadStatus maps an upload error's code to its HTTP status (500 for a
// code uploadStatuses does not name).
func uploadStatus(c domain.Code) int {
	if s, ok := uploadStatuses[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}
