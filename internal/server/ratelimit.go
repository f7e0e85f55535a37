package server

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
	"github.com/ragchat/ragchat/resolvers"
)

// Ask rate-limiter bookkeeping.
const (
	// tenantLimitsTTL is how long a tenant's limits are cached.
	tenantLimitsTTL = time.Minute
	// idleLimiterTTL is how long an unused per-user limiter is kept.
	idleLimiterTTL = 10 * time.Minute
)

// askLimiter is the per-user ask rate limit (resolvers.AskGate): a token
// bucket per tenant and user, refilled at the tenant's AskRatePerMinute with
// AskBurst capacity (the server defaults when the tenant sets none).
type askLimiter struct {
	client       *ent.Client
	defaultRate  float64 // per minute
	defaultBurst int
	metrics      *Metrics
	now          func() time.Time

	mu        sync.Mutex
	users     map[string]*userBucket
	tenants   map[string]tenantLimits
	lastSweep time.Time
}

var _ resolvers.AskGate = (*askLimiter)(nil)

type userBucket struct {
	lim      *rate.Limiter
	lastUsed time.Time
}

type tenantLimits struct {
	perMinute float64
	burst     int
	fetched   time.Time
}

func newAskLimiter(client *ent.Client, perMinute float64, burst int, metrics *Metrics) *askLimiter {
	return &askLimiter{
		client: client, defaultRate: perMinute, defaultBurst: burst, metrics: metrics, now: time.Now,
		users: make(map[string]*userBucket), tenants: make(map[string]tenantLimits),
	}
}

// AllowAsk takes one token from the viewer's bucket, or returns
// RATE_LIMITED with retryAfterSeconds.
func (l *askLimiter) AllowAsk(ctx context.Context) error {
	v := viewer.FromContext(ctx)
	if v == nil {
		return domain.Errorf(domain.CodeUnauthenticated, "authentication required")
	}
	limits := l.tenantLimits(ctx, v.TenantID)
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweepLocked(now)
	key := v.TenantID + "\x00" + v.UserID
	b := l.users[key]
	every := rate.Limit(limits.perMinute / 60)
	if b == nil {
		b = &userBucket{lim: rate.NewLimiter(every, limits.burst)}
		l.users[key] = b
	} else if b.lim.Limit() != every || b.lim.Burst() != limits.burst {
		b.lim.SetLimitAt(now, every)
		b.lim.SetBurstAt(now, limits.burst)
	}
	b.lastUsed = now
	if b.lim.AllowN(now, 1) {
		return nil
	}
	r := b.lim.ReserveN(now, 1)
	wait := r.DelayFrom(now)
	r.CancelAt(now)
	l.metrics.rateLimited.Inc()
	return domain.Errorf(domain.CodeRateLimited, "too many questions; retry in %d s", retrySeconds(wait)).
		With("retryAfterSeconds", retrySeconds(wait)).With("limit", "askRate")
}

// retrySeconds rounds a wait up to whole seconds (at least 1).
func retrySeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// tenantLimits returns the tenant's ask limits, cached for a minute.
func (l *askLimiter) tenantLimits(ctx context.Context, tenantID string) tenantLimits {
	now := l.now()
	l.mu.Lock()
	t, ok := l.tenants[tenantID]
	l.mu.Unlock()
	if ok && now.Sub(t.fetched) < tenantLimitsTTL {
		return t
	}
	t = tenantLimits{perMinute: l.defaultRate, burst: l.defaultBurst, fetched: now}
	if row, err := l.client.Tenant.Get(ctx, tenantID); err == nil {
		if row.Settings.AskRatePerMinute > 0 {
			t.perMinute = row.Settings.AskRatePerMinute
		}
		if row.Settings.AskBurst > 0 {
			t.burst = row.Settings.AskBurst
		}
	}
	l.mu.Lock()
	l.tenants[tenantID] = t
	l.mu.Unlock()
	return t
}

// sweepLocked drops limiters unused for idleLimiterTTL, at most once a
// minute.
func (l *askLimiter) sweepLocked(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute {
		return
	}
	l.lastSweep = now
	for k, b := range l.users {
		if now.Sub(b.lastUsed) > idleLimiterTTL {
			delete(l.users, k)
		}
	}
}
