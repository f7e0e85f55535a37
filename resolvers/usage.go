package resolvers

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/quota"
)

// Usage is the part of internal/quota (*quota.Service) the API uses: the
// viewer's standing, the admins' grants, overrides and reports. It checks
// the roles.
type Usage interface {
	MyUsage(ctx context.Context) (*quota.MyUsage, error)
	GrantUsage(ctx context.Context, in quota.GrantInput) (*quota.Grant, error)
	SetUserQuota(ctx context.Context, userID string, tokens *int64) (*int64, error)
	UsageSummary(ctx context.Context, from, to time.Time) ([]quota.UsageRow, error)
	UsageCosts(ctx context.Context, from, to time.Time) ([]quota.CostRow, error)
}

var _ Usage = (*quota.Service)(nil)

// metering returns the usage service, or UNAVAILABLE when none is wired.
func (r *Resolver) metering() (Usage, error) {
	if r.usage == nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "quotas and usage are not available")
	}
	return r.usage, nil
}

// myUsage returns the viewer's standing against the token quota.
func (r *Resolver) myUsage(ctx context.Context) (*model.MyUsage, error) {
	svc, err := r.metering()
	if err != nil {
		return nil, err
	}
	u, err := svc.MyUsage(ctx)
	if err != nil {
		return nil, err
	}
	out := &model.MyUsage{
		Used: int(u.Used), Reserved: int(u.Reserved), TenantUsed: int(u.TenantUsed),
		ResetsAt: u.ResetsAt, OverSoftLimit: u.OverSoftLimit, Granted: int(u.Granted),
	}
	if u.Limit != nil {
		l := int(*u.Limit)
		out.Limit = &l
	}
	if u.TenantLimit != nil {
		l := int(*u.TenantLimit)
		out.TenantLimit = &l
	}
	if u.Period != "" {
		out.Period, out.Kind = &u.Period, &u.Kind
	}
	return out, nil
}

// usageCosts sums the tenant's settled usage and cost by day, model and
// user in [from, to).
func (r *Resolver) usageCosts(ctx context.Context, from, to time.Time) ([]*model.UsageCostRow, error) {
	svc, err := r.metering()
	if err != nil {
		return nil, err
	}
	rows, err := svc.UsageCosts(ctx, from, to)
	if err != nil {
		return nil, err
	}
	out := make([]*model.UsageCostRow, len(rows))
	for i, c := range rows {
		out[i] = &model.UsageCostRow{
			Day: c.Day.UTC().Format(time.DateOnly), Model: c.Model, UserID: c.UserID, Calls: c.Calls,
			PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens, CostMicros: int(c.CostMicros),
		}
	}
	return out, nil
}
