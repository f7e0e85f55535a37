package openai

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// attemptKey carries an *attempt through a request's context to doer.
type attemptKey struct{}

// attempt observes one HTTP exchange: the Retry-After header of a failure
// and whether a stream carried its "[DONE]" end marker.
type attempt struct {
	mu         sync.Mutex
	retryAfter time.Duration
	sawDone    atomic.Bool
}

func withAttempt(ctx context.Context) (context.Context, *attempt) {
	a := &attempt{}
	return context.WithValue(ctx, attemptKey{}, a), a
}

func (a *attempt) RetryAfter() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.retryAfter
}

// doer is the HTTP client go-openai calls. It records what go-openai's
// errors do not expose: Retry-After, and whether an event stream ended
// with [DONE] (as opposed to a connection closed mid-answer).
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
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &doneDetector{ReadCloser: resp.Body, done: &a.sawDone}
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

var doneMarker = []byte("[DONE]")

// doneDetector watches an event stream for the "[DONE]" marker.
type doneDetector struct {
	io.ReadCloser
	done *atomic.Bool
	tail []byte
}

func (d *doneDetector) Read(p []byte) (int, error) {
	n, err := d.ReadCloser.Read(p)
	if n > 0 && !d.done.Load() {
		data := p[:n]
		// The marker may straddle the previous read and this one: look at
		// the kept tail followed by this read's first bytes, then at this
		// read, without copying it (a read is one small chunk of the
		// answer, and this runs for every one).
		var edgeBuf [16]byte
		edge := append(edgeBuf[:0], d.tail...)
		edge = append(edge, data[:min(n, len(doneMarker)-1)]...)
		if bytes.Contains(edge, doneMarker) || bytes.Contains(data, doneMarker) {
			d.done.Store(true)
		}
		keep := len(doneMarker) - 1
		if n >= keep {
			d.tail = append(d.tail[:0], data[n-keep:]...)
		} else {
			d.tail = append(d.tail[:0], edge[max(0, len(edge)-keep):]...)
		}
	}
	return n, err
}
