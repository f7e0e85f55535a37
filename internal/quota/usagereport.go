package quota

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

// The admins' usage reports read only the ledger's SETTLE entries (settled):
// what the tenant's model calls used, which nothing but the meter writes.
// They are aggregates, not a read of anyone's content, so they are not
// audited.

// UsageRow is the token usage of one model on one day (UTC).
type UsageRow struct {
	Day              time.Time
	Model            string
	Attempts         int
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
	// CostMicros is the cost the usage ledger recorded for the day and
	// model (Pricing, or a model profile's prices), in micro-units.
	CostMicros int64
}

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

// UsageSummary sums the tenant's usage ledger in [from, to) by model and
// UTC day (admins only), oldest day first: the tokens and cost of every
// settled model call (answers and their rewrites, titles and summaries),
// and Attempts the answers among them. The ledger is written only by the
// metering of model calls, so an imported or forked answer, whose token
// counts and model came with it, never counts.
func (s *Service) UsageSummary(ctx context.Context, from, to time.Time) ([]UsageRow, error) {
	es, err := s.settled(ctx, from, to)
	if err != nil {
		return nil, err
	}
	rows := aggregate(es, false, func(k usageKey) UsageRow {
		return UsageRow{Day: k.day, Model: k.model}
	}, func(r *UsageRow, en *ent.UsageEntry) {
		if en.Purpose == usageentry.PurposeANSWER {
			r.Attempts++
		}
		r.PromptTokens += en.PromptTokens
		r.CompletionTokens += en.CompletionTokens
		r.TotalTokens += en.PromptTokens + en.CompletionTokens
		r.CostMicros += en.CostMicros
	})
	slices.SortFunc(rows, func(a, b UsageRow) int {
		if c := a.Day.Compare(b.Day); c != 0 {
			return c
		}
		return cmp.Compare(a.Model, b.Model)
	})
	return rows, nil
}

// UsageCosts sums the tenant's SETTLE entries in [from, to) by UTC day,
// model and user (admins only), oldest day first.
func (s *Service) UsageCosts(ctx context.Context, from, to time.Time) ([]CostRow, error) {
	es, err := s.settled(ctx, from, to)
	if err != nil {
		return nil, err
	}
	rows := aggregate(es, true, func(k usageKey) CostRow {
		return CostRow{Day: k.day, Model: k.model, UserID: k.user}
	}, func(r *CostRow, en *ent.UsageEntry) {
		r.Calls++
		r.PromptTokens += en.PromptTokens
		r.CompletionTokens += en.CompletionTokens
		r.CostMicros += en.CostMicros
	})
	slices.SortFunc(rows, func(a, b CostRow) int {
		if c := a.Day.Compare(b.Day); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Model, b.Model); c != 0 {
			return c
		}
		return cmp.Compare(a.UserID, b.UserID)
	})
	return rows, nil
}

// usageKey is what the reports group ledger entries by: the UTC day, the
// model and, for the cost report, the user.
type usageKey struct {
	day         time.Time
	model, user string
}

// aggregate folds es into one row per usageKey (with the user when byUser):
// newRow makes a key's row at its first entry, add adds an entry to its
// row. The rows come in no particular order.
func aggregate[R any](es []*ent.UsageEntry, byUser bool, newRow func(usageKey) R, add func(*R, *ent.UsageEntry)) []R {
	agg := map[usageKey]*R{}
	for _, en := range es {
		k := usageKey{day: en.CreatedAt.UTC().Truncate(24 * time.Hour), model: en.Model}
		if byUser {
			k.user = en.UserID
		}
		r, ok := agg[k]
		if !ok {
			row := newRow(k)
			r = &row
			agg[k] = r
		}
		add(r, en)
	}
	out := make([]R, 0, len(agg))
	for _, r := range agg {
		out = append(out, *r)
	}
	return out
}

// settled checks that the viewer is an admin (FORBIDDEN otherwise) and that
// [from, to) is a period of at most 366 days (domain.CheckPeriod), the
// only checks of the reports, and returns the tenant's SETTLE
// entries in it.
func (s *Service) settled(ctx context.Context, from, to time.Time) ([]*ent.UsageEntry, error) {
	if _, err := viewer.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	if err := domain.CheckPeriod(from, to); err != nil {
		return nil, err
	}
	es, err := s.client.UsageEntry.Query().
		Where(usageentry.KindEQ(usageentry.KindSETTLE), usageentry.CreatedAtGTE(from), usageentry.CreatedAtLT(to)).
		All(readaudit.Exempt(ctx))
	if err != nil {
		return nil, store.DomainError(err, "usage")
	}
	return es, nil
}
