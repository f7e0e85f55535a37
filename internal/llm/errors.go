package llm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ragchat/ragchat/internal/domain"
)

// ErrorKind classifies a model failure.
type ErrorKind string

// The kinds of model failure.
const (
	// KindRateLimited: the provider answered 429.
	KindRateLimited ErrorKind = "rate_limited"
	// KindTimeout: the whole-request or first-token timeout expired, or the
	// caller's deadline passed.
	KindTimeout ErrorKind = "timeout"
	// KindUnavailable: a 5xx answer, a refused or dropped connection, or a
	// stream that ended before the model finished.
	KindUnavailable ErrorKind = "unavailable"
	// KindBadRequest: the provider rejected the request (4xx other than 429).
	KindBadRequest ErrorKind = "bad_request"
	// KindCanceled: the caller cancelled the context or closed the stream.
	KindCanceled ErrorKind = "canceled"
	// KindUpstream: any other provider failure (bad credentials, malformed
	// answers, unknown errors).
	KindUpstream ErrorKind = "upstream"
)

// Error is a model failure. Message is safe to log; Err is the cause.
type Error struct {
	Kind ErrorKind
	// Status is the provider's HTTP status, 0 when there was none.
	Status  int
	Message string
	// Retryable reports whether trying the same request again may succeed.
	Retryable bool
	// RetryAfter is the provider's Retry-After hint, 0 when absent.
	RetryAfter time.Duration
	Err        error
}

// Error implements error.
func (e *Error) Error() string {
	s := "llm " + string(e.Kind)
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of kind with a formatted message. Rate limits,
// timeouts and unavailability are marked retryable.
func Errorf(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...), Retryable: retryableKind(kind)}
}

func retryableKind(k ErrorKind) bool {
	return k == KindRateLimited || k == KindTimeout || k == KindUnavailable
}

// AsError returns the first *Error in err's chain.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// KindOf returns the kind of err: the kind of its *Error, KindCanceled or
// KindTimeout for context errors, KindUpstream for anything else and ""
// for nil.
func KindOf(err error) ErrorKind {
	if e, ok := AsError(err); ok {
		return e.Kind
	}
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled):
		return KindCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	default:
		return KindUpstream
	}
}

// ContextError converts a context error into an *Error: context.Canceled
// becomes KindCanceled and context.DeadlineExceeded KindTimeout. It returns
// nil for nil.
func ContextError(err error) *Error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: KindTimeout, Message: "deadline exceeded", Retryable: true, Err: err}
	case errors.Is(err, context.Canceled):
		return &Error{Kind: KindCanceled, Message: "canceled", Err: err}
	default:
		return &Error{Kind: KindUpstream, Message: "context ended", Err: err}
	}
}

// FailureCode maps err to the failure code recorded on a failed attempt:
// rate limits to FailureRateLimited, timeouts to FailureModelTimeout,
// cancellation to FailureCancelled and anything else to FailureModelError.
// It returns "" for nil.
func FailureCode(err error) domain.FailureCode {
	switch KindOf(err) {
	case "":
		return ""
	case KindRateLimited:
		return domain.FailureRateLimited
	case KindTimeout:
		return domain.FailureModelTimeout
	case KindCanceled:
		return domain.FailureCancelled
	default:
		return domain.FailureModelError
	}
}

// DomainError maps err to the client-facing domain error: a rate limit to
// CodeRateLimited and any other model failure to CodeModelUnavailable. It
// returns nil for nil.
func DomainError(err error) *domain.Error {
	if err == nil {
		return nil
	}
	if KindOf(err) == KindRateLimited {
		return domain.Wrap(err, domain.CodeRateLimited, "the model provider is rate limiting requests")
	}
	return domain.Wrap(err, domain.CodeModelUnavailable, "the model is unavailable")
}
