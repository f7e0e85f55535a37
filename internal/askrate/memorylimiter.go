package askrate

import (
	"context"
	"sync"
	"time"

	entsql "entgo.io/ent/dialect/sql"
	"golang.org/x/time/rate"
)

// MemoryLimiter is an in-process Limiter: one golang.org/x/time/rate
// token bucket per key, for tests and single-process embedding. With
// several instances each would meter its own share; servers use
// DBLimiter, which every instance on the database shares.
type MemoryLimiter struct {
	now func() time.Time

	mu        sync.Mutex
	buckets   map[string]*keyBucket
	lastSweep time.Time
}

// keyBucket is one key's limiter and the rate it was last used with.
type keyBucket struct {
	lim  *rate.Limiter
	rate Rate
}

var _ Limiter = (*MemoryLimiter)(nil)

// NewMemoryLimiter returns an empty in-process limiter; now nil means
// time.Now.
func NewMemoryLimiter(now func() time.Time) *MemoryLimiter {
	if now == nil {
		now = time.Now
	}
	return &MemoryLimiter{now: now, buckets: make(map[string]*keyBucket)}
}

// limit converts a Rate to x/time/rate's events per second.
func (r Rate) limit() rate.Limit { return rate.Limit(r.PerMinute / 60) }

// bucket returns key's limiter, created full, under rate r at now. A
// tenant that changed its rate gets the new one from now on.
func (l *MemoryLimiter) bucket(key string, r Rate, now time.Time) *rate.Limiter {
	b := l.buckets[key]
	if b == nil {
		b = &keyBucket{lim: rate.NewLimiter(r.limit(), r.Burst), rate: r}
		l.buckets[key] = b
		return b.lim
	}
	if b.rate != r {
		b.lim.SetLimitAt(now, r.limit())
		b.lim.SetBurstAt(now, r.Burst)
		b.rate = r
	}
	return b.lim
}

// Take implements Limiter: it reserves one ask and keeps it when it is
// available now; otherwise it cancels the reservation and returns the
// wait.
func (l *MemoryLimiter) Take(_ context.Context, key string, r Rate) (time.Duration, error) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	lim := l.bucket(key, r, now)
	res := lim.ReserveN(now, 1)
	if !res.OK() {
		return time.Hour, nil // a burst of zero never allows an ask
	}
	wait := res.DelayFrom(now)
	if wait > 0 {
		res.CancelAt(now)
	}
	return wait, nil
}

// Give implements Limiter: a reservation of -1 tokens puts one back
// (the limiter caps its tokens at the burst when it next refills).
func (l *MemoryLimiter) Give(_ context.Context, key string, r Rate) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if lim := l.bucket(key, r, now); lim.TokensAt(now) < float64(r.Burst) {
		lim.ReserveN(now, -1)
	}
}

// ChargesInTx implements Limiter: the buckets are in memory, outside
// any transaction.
func (l *MemoryLimiter) ChargesInTx() bool { return false }

// TakeStep implements Limiter: an in-memory bucket is no step of a
// statement.
func (l *MemoryLimiter) TakeStep(string, string, Rate) (entsql.Querier, bool) { return nil, false }

// sweep drops, at most once a minute, the buckets that have refilled
// completely: a new bucket starts full, so forgetting them changes nothing.
func (l *MemoryLimiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute {
		return
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		if b.lim.TokensAt(now) >= float64(b.rate.Burst) {
			delete(l.buckets, k)
		}
	}
}
