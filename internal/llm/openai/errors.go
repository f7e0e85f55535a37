package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/ragchat/ragchat/internal/llm"
)

// scope is what classify needs to know about where an error happened.
type scope struct {
	caller  context.Context // the caller's context
	request context.Context // the caller's context plus the whole-request timeout
	attempt *attempt        // the failed exchange, if any
	// firstToken is set when the first-token timer fired, idle when the
	// inter-token timer did; closed when the stream was closed by its
	// reader.
	firstToken, idle, closed bool
}

// classify turns any failure into an *llm.Error.
func classify(err error, s scope) *llm.Error {
	if e, ok := llm.AsError(err); ok {
		return e
	}
	switch {
	case s.closed:
		return &llm.Error{Kind: llm.KindCanceled, Message: "stream closed", Err: err}
	case s.firstToken:
		return &llm.Error{Kind: llm.KindTimeout, Message: "no answer token before the first-token timeout", Retryable: true, Err: err}
	case s.idle:
		return &llm.Error{Kind: llm.KindTimeout, Message: "the model stalled: no answer token within the idle timeout", Err: err}
	case s.caller != nil && s.caller.Err() != nil:
		e := llm.ContextError(s.caller.Err())
		e.Err = errors.Join(e.Err, err)
		return e
	case s.request != nil && errors.Is(s.request.Err(), context.DeadlineExceeded):
		return &llm.Error{Kind: llm.KindTimeout, Message: "request timeout", Retryable: true, Err: err}
	}
	e := classifyError(err)
	if s.attempt != nil && e.Status != 0 {
		e.RetryAfter = s.attempt.RetryAfter()
	}
	return e
}

func classifyError(err error) *llm.Error {
	var apiErr *goopenai.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0 {
		return fromStatus(apiErr.HTTPStatusCode, apiErr.Message, fmt.Sprint(apiErr.Code)+" "+apiErr.Type, err)
	}
	var reqErr *goopenai.RequestError
	if errors.As(err, &reqErr) && reqErr.HTTPStatusCode != 0 {
		return fromStatus(reqErr.HTTPStatusCode, http.StatusText(reqErr.HTTPStatusCode), string(reqErr.Body), err)
	}
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return llm.ContextError(err)
	case errors.Is(err, goopenai.ErrChatCompletionInvalidModel), errors.Is(err, goopenai.ErrReasoningModelMaxTokensDeprecated):
		return &llm.Error{Kind: llm.KindBadRequest, Message: "request rejected by the client library", Err: err}
	case isConnectionError(err):
		return &llm.Error{Kind: llm.KindUnavailable, Message: "connection failed", Retryable: true, Err: err}
	case errors.As(err, &apiErr):
		// An error event inside a stream (no HTTP status).
		return &llm.Error{Kind: llm.KindUpstream, Message: apiErr.Message, Err: err}
	default:
		return &llm.Error{Kind: llm.KindUpstream, Message: "model request failed", Err: err}
	}
}

// fromStatus maps an HTTP error status. detail carries the provider's code
// and type, used to tell an exhausted quota (not retryable) from a rate
// limit.
func fromStatus(status int, msg, detail string, err error) *llm.Error {
	e := &llm.Error{Status: status, Message: msg, Err: err}
	switch {
	case status == http.StatusTooManyRequests:
		e.Kind = llm.KindRateLimited
		e.Retryable = !containsFold(detail, "insufficient_quota")
	case status == http.StatusRequestTimeout:
		e.Kind, e.Retryable = llm.KindTimeout, true
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = llm.KindUpstream
	case status >= 500:
		e.Kind, e.Retryable = llm.KindUnavailable, true
	case status >= 400:
		e.Kind = llm.KindBadRequest
	default:
		e.Kind = llm.KindUpstream
	}
	return e
}

func isConnectionError(err error) bool {
	var netErr net.Error
	var opErr *net.OpError
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.As(err, &opErr) || errors.As(err, &netErr)
}

// shouldRetry reports whether the adapter retries e itself: rate limits
// and unavailability, never other 4xx answers or timeouts.
func shouldRetry(e *llm.Error) bool {
	return e.Retryable && (e.Kind == llm.KindRateLimited || e.Kind == llm.KindUnavailable)
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
