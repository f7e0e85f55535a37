package openai

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// attemptKey carries an *attempt through a request's context to doer.
type attemptKey struct{}

// attempt observes one HTTP exchange: the Retry-After header of a failure
// and, for a stream, the body of a successful answer, which the stream
// reads itself (eventReader) instead of through go-openai's line reader.
type attempt struct {
	mu         sync.Mutex
	retryAfter time.Duration
	// stream is set before the exchange when its body is wanted; body is
	// set by doer once the answer's headers arrived without an error
	// status.
	stream bool
	body   io.ReadCloser
}

func withAttempt(ctx context.Context) (context.Context, *attempt) {
	a := &attempt{}
	return context.WithValue(ctx, attemptKey{}, a), a
}

// attemptOnce makes one attempt of a non-streamed request: do, under the
// attempt's context of request (withAttempt); an error is classified for
// the caller's context, the request's and the attempt.
func attemptOnce[T any](caller, request context.Context, do func(context.Context) (T, error)) (T, error) {
	actx, att := withAttempt(request)
	v, err := do(actx)
	if err != nil {
		return v, classify(err, scope{caller: caller, request: request, attempt: att})
	}
	return v, nil
}

// withStreamAttempt is withAttempt for a streamed answer.
func withStreamAttempt(ctx context.Context) (context.Context, *attempt) {
	a := &attempt{stream: true}
	return context.WithValue(ctx, attemptKey{}, a), a
}

// streamBody returns the body doer recorded.
func (a *attempt) streamBody() io.ReadCloser {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.body
}

func (a *attempt) RetryAfter() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.retryAfter
}

// doer is the HTTP client go-openai calls. It records what go-openai's
// errors do not expose, Retry-After, and hands a stream's body to the
// stream, which parses the events itself (go-openai still builds the
// request and decodes error statuses).
type doer struct{ client *http.Client }

// Do implements go-openai's HTTPDoer.
func (d *doer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.client.Do(req)
	a, _ := req.Context().Value(attemptKey{}).(*attempt)
	if err != nil || a == nil {
		return resp, err
	}
	if resp.StatusCode >= 400 {
		if ra, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			a.mu.Lock()
			a.retryAfter = ra
			a.mu.Unlock()
		}
	}
	if a.stream && resp.StatusCode >= 200 && resp.StatusCode < 400 {
		a.mu.Lock()
		a.body = resp.Body
		a.mu.Unlock()
	}
	return resp, nil
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
}
