package askrate

import (
	"context"
	"math"
	"time"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
)

// Take takes one request of key's bucket at rate r from l (nil: every
// request passes). A refusal is Refused's error.
func Take(ctx context.Context, l Limiter, key string, r Rate, what, limit string) error {
	if l == nil {
		return nil
	}
	wait, err := l.Take(ctx, key, r)
	if err != nil {
		return store.DomainError(err, "rate limit")
	}
	if wait <= 0 {
		return nil
	}
	return Refused(wait, what, limit)
}

// Refused is the RATE_LIMITED error of a request over its rate, "too many
// <what>; retry in N s", with extensions.retryAfterSeconds (N: wait in
// whole seconds, at least one) and limit.
func Refused(wait time.Duration, what, limit string) error {
	secs := max(1, int(math.Ceil(wait.Seconds())))
	return domain.Errorf(domain.CodeRateLimited, "too many %s; retry in %d s", what, secs).
		With("retryAfterSeconds", secs).With("limit", limit)
}
