package openai

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/ragchat/ragchat/internal/llm"
)

// withRetry runs op until it succeeds, fails for good, or MaxRetries
// retries are spent. It waits with exponential backoff and jitter between
// attempts, or the provider's Retry-After when that is longer; a
// Retry-After beyond MaxRetryDelay or the request deadline ends the retries.
// op must return *llm.Error values. request is the context the attempts
// run under; caller is the caller's own.
func (m *Model) withRetry(caller, request context.Context, op func() error) error {
	for n := 0; ; n++ {
		err := op()
		if err == nil {
			return nil
		}
		e, ok := llm.AsError(err)
		if !ok || !shouldRetry(e) || n >= m.cfg.MaxRetries {
			return err
		}
		delay := m.backoff(n)
		if e.RetryAfter > delay {
			delay = e.RetryAfter
		}
		if delay > m.cfg.MaxRetryDelay {
			return err
		}
		if dl, ok := request.Deadline(); ok && time.Until(dl) < delay {
			return err
		}
		if err := m.sleep(request, delay); err != nil {
			return classify(err, scope{caller: caller, request: request})
		}
	}
}

// backoff is the delay before retry n (0-based): RetryBaseDelay·2ⁿ capped at
// MaxRetryDelay, of which the upper half is random ("equal jitter").
func (m *Model) backoff(n int) time.Duration {
	d := m.cfg.RetryBaseDelay << min(n, 20)
	if d <= 0 || d > m.cfg.MaxRetryDelay {
		d = m.cfg.MaxRetryDelay
	}
	half := d / 2
	return half + rand.N(half+1)
}

// requestContext applies the whole-request timeout to ctx.
func (m *Model) requestContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, m.cfg.Timeout)
}
