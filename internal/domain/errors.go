// Package domain holds ragchat's domain vocabulary: typed error codes,
// tenant settings, attempt manifests and the enumerations shared by the
// storage, engine and API layers. It imports nothing from GraphQL or Ent.
package domain

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable error code. API adapters expose it
// verbatim (GraphQL extensions.code); clients switch on it.
type Code string

// The error codes ragchat returns. They are part of the public contract:
// never rename one.
const (
	CodeUnauthenticated     Code = "UNAUTHENTICATED"
	CodeForbidden           Code = "FORBIDDEN"
	CodeNotFound            Code = "NOT_FOUND"
	CodeBadUserInput        Code = "BAD_USER_INPUT"
	CodeConversationBusy    Code = "CONVERSATION_BUSY"
	CodeConversationExpired Code = "CONVERSATION_EXPIRED"
	CodeConversationClosed  Code = "CONVERSATION_ARCHIVED"
	CodeIdempotencyMismatch Code = "IDEMPOTENCY_MISMATCH"
	CodeConflict            Code = "CONFLICT"
	CodeRateLimited         Code = "RATE_LIMITED"
	CodeQuotaExceeded       Code = "QUOTA_EXCEEDED"
	CodeModelUnavailable    Code = "MODEL_UNAVAILABLE"
	CodeUnavailable         Code = "UNAVAILABLE"
	CodeInternal            Code = "INTERNAL"
)

// Error is a domain error with a stable code and a message that is safe to
// show to the client. Details carries extra, client-safe fields (for example
// the id of the attempt that keeps a conversation busy).
type Error struct {
	Code    Code
	Message string
	Details map[string]any
	// Err is the underlying cause. It is logged, never shown to clients.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with code and a formatted client-safe message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error with code and message whose cause is err.
func Wrap(err error, code Code, message string) *Error {
	return &Error{Code: code, Message: message, Err: err}
}

// With returns a copy of e with key set to value in its details.
func (e *Error) With(key string, value any) *Error {
	c := *e
	c.Details = make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		c.Details[k] = v
	}
	c.Details[key] = value
	return &c
}

// ErrorCode returns the code of the first *Error in err's chain, or
// CodeInternal for any other non-nil error, or "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the client-safe message of err: the message of its
// *Error, or "internal error" for anything else.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Code != CodeInternal {
		return e.Message
	}
	return "internal error"
}

// ErrorDetails returns the client-safe details of err, if any.
func ErrorDetails(err error) map[string]any {
	var e *Error
	if errors.As(err, &e) {
		return e.Details
	}
	return nil
}

// NotFound returns the canonical NOT_FOUND error for a kind of thing. The
// message never says whether the thing exists elsewhere.
func NotFound(kind string) *Error {
	return Errorf(CodeNotFound, "%s not found", kind)
}
