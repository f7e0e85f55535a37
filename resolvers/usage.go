package resolvers

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/graph/model"
)

// myUsage returns the viewer's standing against the token quota.
func (r *Resolver) myUsage(ctx context.Context) (*model.MyUsage, error) {
	u, err := r.engine.MyUsage(ctx)
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
	rows, err := r.engine.UsageCosts(ctx, from, to)
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
