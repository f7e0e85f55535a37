package chat

import (
	"context"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The engine charges asks and retries to the viewer's bucket of its
// askrate.Limiter (Deps.AskLimiter), at the tenant's rate or the
// configured default, and words a refusal as RATE_LIMITED.

// RateLimitObserver is an optional part of Observer: it counts asks
// refused by the rate limit.
type RateLimitObserver interface {
	AskRateLimited()
}

// askRate is the viewer's ask rate: the tenant's settings, else the
// engine's configured default.
func (e *Engine) askRate(raw domain.TenantSettings) askrate.Rate {
	r := askrate.Rate{PerMinute: e.cfg.Limits.AskRatePerMinute, Burst: e.cfg.Limits.AskBurst}
	if raw.AskRatePerMinute > 0 {
		r.PerMinute = raw.AskRatePerMinute
	}
	if raw.AskBurst > 0 {
		r.Burst = raw.AskBurst
	}
	return r
}

// askKey names the viewer's bucket.
func askKey(v *viewer.Viewer) string { return askrate.Key(v.TenantID, v.UserID) }

// chargeAsk takes one ask of the viewer's rate, or returns RATE_LIMITED
// with extensions.retryAfterSeconds. Without a limiter every ask passes.
func (e *Engine) chargeAsk(ctx context.Context, v *viewer.Viewer, raw domain.TenantSettings) error {
	if e.limiter == nil {
		return nil
	}
	wait, err := e.limiter.Take(ctx, askKey(v), e.askRate(raw))
	if err != nil {
		return store.DomainError(err, "rate limit")
	}
	if wait <= 0 {
		return nil
	}
	if o, ok := e.obs.(RateLimitObserver); ok {
		o.AskRateLimited()
	}
	return askrate.Refused(wait, "questions", domain.LimitAskRate)
}

// chargesInTx reports whether the ask limiter takes part in the ask's
// transaction (the database limiter does).
func (e *Engine) chargesInTx() bool {
	return e.limiter != nil && e.limiter.ChargesInTx()
}

// refundAsk gives back an ask charged for a request that turned out to be
// a replay.
func (e *Engine) refundAsk(ctx context.Context, v *viewer.Viewer, raw domain.TenantSettings) {
	if e.limiter != nil {
		e.limiter.Give(ctx, askKey(v), e.askRate(raw))
	}
}
