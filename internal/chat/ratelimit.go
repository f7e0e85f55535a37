package chat

import (
	"context"
	"math"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Rate is a token bucket: Burst asks at once, refilled at PerMinute.
type Rate struct {
	PerMinute float64
	Burst     int
}

// AskLimiter meters the asks and retries of each user. The engine charges
// one ask only after the idempotency lookup, when it is about to create an
// attempt, so a replayed key never costs rate (docs/ENGINE.md, Ask, step by
// step). DBAskLimiter is shared by every instance on the database;
// MemoryAskLimiter is the in-process implementation.
type AskLimiter interface {
	// Take takes one ask from key's bucket and returns 0, or takes nothing
	// and returns how long until an ask is available.
	Take(ctx context.Context, key string, r Rate) (wait time.Duration, err error)
	// Give returns an ask taken by Take that created nothing (a concurrent
	// twin with the same idempotency key won).
	Give(ctx context.Context, key string, r Rate)
	// ChargesInTx reports whether Take runs in the Ent transaction its
	// context carries (ent.NewTxContext). The engine then charges an ask
	// inside the ask's own transaction, so that an ask which creates
	// nothing costs nothing; otherwise it charges first and gives the ask
	// back when nothing was created.
	ChargesInTx() bool
	// TakeStep returns Take as the first step of a data-modifying WITH on
	// dialect, run in the caller's transaction (docs/ENGINE.md,
	// "Statements per ask"): a statement that numbers its arguments from
	// $1 and returns a row only when it takes one ask from key's bucket.
	// ok is false when the limiter cannot make Take such a step (another
	// dialect, a limiter outside the database, a rate that admits
	// nothing); the engine then calls Take.
	TakeStep(dialect, key string, r Rate) (step entsql.Querier, ok bool)
}

// RateLimitObserver is an optional part of Observer: it counts asks
// refused by the rate limit.
type RateLimitObserver interface {
	AskRateLimited()
}

// askRate is the viewer's ask rate: the tenant's settings, else the
// engine's configured default.
func (e *Engine) askRate(raw domain.TenantSettings) Rate {
	r := Rate{PerMinute: e.cfg.Limits.AskRatePerMinute, Burst: e.cfg.Limits.AskBurst}
	if raw.AskRatePerMinute > 0 {
		r.PerMinute = raw.AskRatePerMinute
	}
	if raw.AskBurst > 0 {
		r.Burst = raw.AskBurst
	}
	return r
}

// askKey names the viewer's bucket.
func askKey(v *viewer.Viewer) string { return v.TenantID + "\x00" + v.UserID }

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
	secs := max(1, int(math.Ceil(wait.Seconds())))
	return domain.Errorf(domain.CodeRateLimited, "too many questions; retry in %d s", secs).
		With("retryAfterSeconds", secs).With("limit", LimitAskRate)
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
