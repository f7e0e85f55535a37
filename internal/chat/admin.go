package chat

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/viewer"
)

// UsageSummary sums the tenant's usage ledger in [from, to) by model and
// UTC day (admins only), oldest day first: the tokens and cost of every
// settled model call (answers and their rewrites, titles and summaries),
// and Attempts the answers among them. The ledger is written only by the
// metering of model calls, so an imported or forked answer, whose token
// counts and model came with it, never counts. It is not audited, like
// FeedbackSummary.
func (e *Engine) UsageSummary(ctx context.Context, from, to time.Time) ([]UsageRow, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	if err := domain.CheckPeriod(from, to); err != nil {
		return nil, err
	}
	es, err := e.settled(readaudit.Exempt(ctx), from, to)
	if err != nil {
		return nil, err
	}
	type key struct {
		day   time.Time
		model string
	}
	agg := map[key]*UsageRow{}
	for _, en := range es {
		k := key{day: en.CreatedAt.UTC().Truncate(24 * time.Hour), model: en.Model}
		r, ok := agg[k]
		if !ok {
			r = &UsageRow{Day: k.day, Model: k.model}
			agg[k] = r
		}
		if en.Purpose == usageentry.PurposeANSWER {
			r.Attempts++
		}
		r.PromptTokens += en.PromptTokens
		r.CompletionTokens += en.CompletionTokens
		r.TotalTokens += en.PromptTokens + en.CompletionTokens
		r.CostMicros += en.CostMicros
	}
	out := make([]UsageRow, 0, len(agg))
	for _, r := range agg {
		out = append(out, *r)
	}
	sortUsage(out)
	return out, nil
}

// sortUsage orders usage rows by day, then model.
func sortUsage(rows []UsageRow) {
	slices.SortFunc(rows, func(a, b UsageRow) int {
		if c := a.Day.Compare(b.Day); c != 0 {
			return c
		}
		return cmp.Compare(a.Model, b.Model)
	})
}
