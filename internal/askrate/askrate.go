// Package askrate meters the asks and retries of each user: a Rate (a
// token bucket of Burst asks refilled at PerMinute) per bucket key, and the
// Limiter that takes and gives back asks under it. DBLimiter keeps the
// buckets in the database (one ask_rates row per user, under the generic
// cell rate algorithm), so every instance on the database shares them, and
// can make its take one step of a data-modifying statement (TakeStep);
// MemoryLimiter keeps them in-process, for tests and single-process
// embedding. The conversation engine (internal/chat) decides when an ask is
// charged and at which rate; this package knows nothing of the engine
// (internal/askrate/README.md).
package askrate

import (
	"context"
	"strings"
	"time"

	entsql "entgo.io/ent/dialect/sql"
)

// Rate is a token bucket: Burst asks at once, refilled at PerMinute.
type Rate struct {
	PerMinute float64
	Burst     int
}

// Limiter meters the asks and retries of each user. The engine charges
// one ask only after the idempotency lookup, when it is about to create an
// attempt, so a replayed key never costs rate (docs/ENGINE.md, Ask, step by
// step). DBLimiter is shared by every instance on the database;
// MemoryLimiter is the in-process implementation.
type Limiter interface {
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

// Key names the bucket of user userID of tenant tenantID.
func Key(tenantID, userID string) string { return tenantID + "\x00" + userID }

// splitKey undoes Key: a key without a tenant part is a user of no tenant.
func splitKey(key string) (tenant, user string) {
	if t, u, ok := strings.Cut(key, "\x00"); ok {
		return t, u
	}
	return "", key
}
