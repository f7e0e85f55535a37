package chat

import (
	"context"
	"sync"
	"time"
)

// MemoryAskLimiter is an in-process AskLimiter: one token bucket per key.
// With several instances each meters its own share; a shared limiter can
// replace it behind the AskLimiter interface.
type MemoryAskLimiter struct {
	now func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

// bucket is one key's token bucket.
type bucket struct {
	tokens float64
	at     time.Time // when tokens was computed
	rate   Rate      // the rate it was last used with
}

var _ AskLimiter = (*MemoryAskLimiter)(nil)

// NewMemoryAskLimiter returns an empty in-process limiter; now nil means
// time.Now.
func NewMemoryAskLimiter(now func() time.Time) *MemoryAskLimiter {
	if now == nil {
		now = time.Now
	}
	return &MemoryAskLimiter{now: now, buckets: make(map[string]*bucket)}
}

// refill returns key's bucket brought up to now under rate r.
func (l *MemoryAskLimiter) refill(key string, r Rate, now time.Time) *bucket {
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: float64(r.Burst), at: now, rate: r}
		l.buckets[key] = b
		return b
	}
	b.tokens = b.level(now, r)
	b.at, b.rate = now, r
	return b
}

// Take implements AskLimiter.
func (l *MemoryAskLimiter) Take(_ context.Context, key string, r Rate) (time.Duration, error) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.refill(key, r, now)
	if b.tokens >= 1 {
		b.tokens--
		return 0, nil
	}
	if r.PerMinute <= 0 {
		return time.Hour, nil
	}
	return time.Duration((1 - b.tokens) / r.PerMinute * float64(time.Minute)), nil
}

// Give implements AskLimiter.
func (l *MemoryAskLimiter) Give(_ context.Context, key string, r Rate) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.refill(key, r, now)
	b.tokens = min(b.tokens+1, float64(r.Burst))
}

// level is the bucket's tokens at now under rate r (at most r.Burst).
func (b *bucket) level(now time.Time, r Rate) float64 {
	t := b.tokens
	if dt := now.Sub(b.at); dt > 0 {
		t += dt.Minutes() * r.PerMinute
	}
	return min(t, float64(r.Burst))
}

// sweep drops, at most once a minute, the buckets that have refilled
// completely: a new bucket starts full, so forgetting them changes nothing.
func (l *MemoryAskLimiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute {
		return
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		if b.level(now, b.rate) >= float64(b.rate.Burst) {
			delete(l.buckets, k)
		}
	}
}
