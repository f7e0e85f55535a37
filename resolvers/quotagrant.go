package resolvers

import (
	"context"

	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/quota"
)

// grantUsage raises one user's limit for the current quota period.
func (r *Resolver) grantUsage(ctx context.Context, in model.GrantUsageInput) (*model.GrantUsagePayload, error) {
	svc, err := r.metering()
	if err != nil {
		return nil, err
	}
	note := orEmpty(in.Note)
	g, err := svc.GrantUsage(ctx, quota.GrantInput{UserID: in.UserID, Tokens: int64(in.Tokens), Note: note})
	if err != nil {
		return nil, err
	}
	return &model.GrantUsagePayload{Grant: &model.UsageGrant{
		UserID: g.Entry.UserID, Tokens: g.Entry.PromptTokens, Note: g.Note, Period: g.Entry.Period,
		PeriodStart: *g.Entry.PeriodStart, ResetsAt: g.ResetsAt, GrantedAt: g.Entry.CreatedAt,
	}}, nil
}

// setUserQuota sets or removes the override of one user's per-user limit.
func (r *Resolver) setUserQuota(ctx context.Context, userID string, tokens *int) (*model.SetUserQuotaPayload, error) {
	svc, err := r.metering()
	if err != nil {
		return nil, err
	}
	var t *int64
	if tokens != nil {
		v := int64(*tokens)
		t = &v
	}
	got, err := svc.SetUserQuota(ctx, userID, t)
	if err != nil {
		return nil, err
	}
	out := &model.SetUserQuotaPayload{UserID: userID}
	if got != nil {
		v := int(*got)
		out.Tokens = &v
	}
	return out, nil
}
