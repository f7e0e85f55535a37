package chat

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// CostRow is the settled usage of one user with one model on one UTC day,
// from the usage ledger.
type CostRow struct {
	Day              time.Time
	Model            string
	UserID           string
	Calls            int
	PromptTokens     int
	CompletionTokens int
	CostMicros       int64
}

// UsageCosts sums the tenant's SETTLE entries in [from, to) by UTC day,
// model and user (admins only), oldest day first.
func (e *Engine) UsageCosts(ctx context.Context, from, to time.Time) ([]CostRow, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	if err := domain.CheckPeriod(from, to); err != nil {
		return nil, err
	}
	return e.costRows(readaudit.Exempt(ctx), from, to)
}

// settled returns the tenant's SETTLE entries in [from, to): what its
// model calls used. UsageCosts and UsageSummary read only these, so
// nothing but the meter (internal/quota) makes usage appear.
func (e *Engine) settled(ctx context.Context, from, to time.Time) ([]*ent.UsageEntry, error) {
	es, err := e.client.UsageEntry.Query().
		Where(usageentry.KindEQ(usageentry.KindSETTLE), usageentry.CreatedAtGTE(from), usageentry.CreatedAtLT(to)).
		All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "usage")
	}
	return es, nil
}

// costRows is UsageCosts without the checks.
func (e *Engine) costRows(ctx context.Context, from, to time.Time) ([]CostRow, error) {
	es, err := e.settled(ctx, from, to)
	if err != nil {
		return nil, err
	}
	type key struct {
		day         time.Time
		model, user string
	}
	agg := map[key]*CostRow{}
	for _, en := range es {
		k := key{day: en.CreatedAt.UTC().Truncate(24 * time.Hour), model: en.Model, user: en.UserID}
		r, ok := agg[k]
		if !ok {
			r = &CostRow{Day: k.day, Model: k.model, UserID: k.user}
			agg[k] = r
		}
		r.Calls++
		r.PromptTokens += en.PromptTokens
		r.CompletionTokens += en.CompletionTokens
		r.CostMicros += en.CostMicros
	}
	out := make([]CostRow, 0, len(agg))
	for _, r := range agg {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b CostRow) int {
		if c := a.Day.Compare(b.Day); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Model, b.Model); c != 0 {
			return c
		}
		return cmp.Compare(a.UserID, b.UserID)
	})
	return out, nil
}
