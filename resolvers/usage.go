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

// usageRowModel is the API's form of a row of the usage summary.
func usageRowModel(u quota.UsageRow) *model.UsageRow {
	return &model.UsageRow{
		Day:              u.Day.UTC().Format(time.DateOnly),
		Model:            u.Model,
		Attempts:         u.Attempts,
		PromptTokens:     u.PromptTokens,
		CompletionTokens: u.CompletionTokens,
		TotalTokens:      u.TotalTokens,
		CostMicros:       int(u.CostMicros),
	}
}

// costRowModel is the API's form of a row of the usage costs.
func costRowModel(c quota.CostRow) *model.UsageCostRow {
	return &model.UsageCostRow{
		Day: c.Day.UTC().Format(time.DateOnly), Model: c.Model, UserID: c.UserID, Calls: c.Calls,
		PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens, CostMicros: int(c.CostMicros),
	}
}
