package quota_test

import (
	"context"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/quota"
)

// TestPeriods: a DAILY period runs from UTC midnight to the next, a
// MONTHLY one from the 1st to the 1st of the next month, whatever the
// caller's time zone.
func TestPeriods(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	cases := []struct {
		name, period string
		now          time.Time
		start, end   string
	}{
		{"daily", domain.QuotaDaily, time.Date(2026, 12, 3, 23, 59, 0, 0, time.UTC), "2026-12-03T00:00:00Z", "2026-12-04T00:00:00Z"},
		{"daily in another zone", domain.QuotaDaily, time.Date(2026, 12, 4, 8, 0, 0, 0, tokyo), "2026-12-03T00:00:00Z", "2026-12-04T00:00:00Z"},
		{"monthly across the year", domain.QuotaMonthly, time.Date(2026, 12, 31, 12, 0, 0, 0, time.UTC), "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := quota.PeriodStart(tc.period, tc.now)
			if got := start.Format(time.RFC3339); got != tc.start {
				t.Errorf("start %s, want %s", got, tc.start)
			}
			if got := quota.PeriodEnd(tc.period, start).Format(time.RFC3339); got != tc.end {
				t.Errorf("end %s, want %s", got, tc.end)
			}
		})
	}
}

// TestPrices: the configured prices parse, an unknown model costs zero, a
// cost rounds up to a whole micro-unit, and malformed or negative prices
// are refused.
func TestPrices(t *testing.T) {
	p, err := quota.ParsePrices(`{"gpt-x":{"input":2500000,"output":10000000}}`)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cases := []struct {
		model              string
		prompt, completion int
		want               int64
	}{
		{"gpt-x", 1000, 100, 3500},
		{"gpt-x", 1, 0, 3},
		{"other", 1000, 1000, 0},
	}
	for _, tc := range cases {
		if got := quota.Cost(ctx, p, tc.model, tc.prompt, tc.completion); got != tc.want {
			t.Errorf("%s %d/%d: %d, want %d", tc.model, tc.prompt, tc.completion, got, tc.want)
		}
	}
	if p, err := quota.ParsePrices(""); err != nil || len(p) != 0 {
		t.Errorf("unset: %v %v", p, err)
	}
	for _, bad := range []string{`{"m":`, `{"m":{"input":-1}}`} {
		if _, err := quota.ParsePrices(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
