package quota

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// MyUsage is the viewer's standing against the tenant's token quota in
// the current period (docs/API.md, "Quotas and usage").
type MyUsage struct {
	// Used is the tokens the viewer's settled calls used this period,
	// Reserved what their running answers hold.
	Used, Reserved int64
	// Granted is what admins granted the viewer this period (GRANT
	// entries): it adds to Limit.
	Granted int64
	// Limit is the viewer's per-user limit (an admin's override of it
	// first, else the tenant's setting), nil when none; TenantLimit the
	// tenant's, with TenantUsed (settled and reserved) beside it.
	Limit, TenantLimit *int64
	TenantUsed         int64
	// Period (DAILY, MONTHLY) and Kind (HARD, SOFT) of the quota, empty
	// without one; ResetsAt is the end of the period.
	Period, Kind string
	ResetsAt     *time.Time
	// OverSoftLimit reports that a SOFT limit is passed.
	OverSoftLimit bool
}

// MyUsage returns the viewer's usage in the current quota period. Without
// a quota, Used sums the viewer's settled entries of the current UTC day.
func (s *Service) MyUsage(ctx context.Context) (*MyUsage, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	st, err := s.settings(ctx)
	if err != nil {
		return nil, err
	}
	now := s.now()
	q := st.Quota()
	if !q.Enabled() {
		start := PeriodStart(domain.QuotaDaily, now)
		es, err := s.client.UsageEntry.Query().
			Where(usageentry.UserID(v.UserID), usageentry.KindEQ(usageentry.KindSETTLE), usageentry.CreatedAtGTE(start)).
			All(ctx)
		if err != nil {
			return nil, store.DomainError(err, "usage")
		}
		u := &MyUsage{}
		for _, en := range es {
			u.Used += int64(en.PromptTokens + en.CompletionTokens)
		}
		return u, nil
	}
	q, err = s.meter.Effective(ctx, v.TenantID, v.UserID, q)
	if err != nil {
		return nil, store.DomainError(err, "usage")
	}
	q = q.WithDefaults()
	tot, err := s.meter.Read(ctx, v.TenantID, v.UserID, q, now)
	if err != nil {
		return nil, store.DomainError(err, "usage")
	}
	end := PeriodEnd(q.Period, PeriodStart(q.Period, now))
	u := &MyUsage{Used: tot.UserUsed, Reserved: tot.UserReserved, TenantUsed: tot.TenantUsed + tot.TenantReserved,
		Granted: tot.UserGranted, Period: q.Period, Kind: q.Kind, ResetsAt: &end}
	if q.UserTokens > 0 {
		u.Limit = &q.UserTokens
		u.OverSoftLimit = q.Kind == domain.QuotaSoft && tot.UserUsed+tot.UserReserved > q.UserTokens+tot.UserGranted
	}
	if q.TenantTokens > 0 {
		u.TenantLimit = &q.TenantTokens
		u.OverSoftLimit = u.OverSoftLimit || (q.Kind == domain.QuotaSoft && u.TenantUsed > q.TenantTokens)
	}
	return u, nil
}
