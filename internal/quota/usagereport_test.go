package quota_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/quota"
)

// TestUsageReports: the admins' reports sum the settled entries of the
// period (a reservation is not usage) by day and model (answers counted as
// Attempts) and by day, model and user, priced at the meter's prices or
// the call's own; members are FORBIDDEN and a period that is empty,
// reversed or longer than 366 days is BAD_USER_INPUT naming the field.
func TestUsageReports(t *testing.T) {
	forEach(t, domain.TokenQuota{}, func(t *testing.T, e *env) {
		m := quota.New(e.db, quota.StaticPricing{"m": {Input: 1_000_000, Output: 2_000_000}})
		now := time.Now().UTC()
		charge := func(user, model string, purpose usageentry.Purpose, prompt, completion int, price *quota.Price) {
			t.Helper()
			require.NoError(t, m.Charge(as(admin), quota.Call{TenantID: admin.TenantID, UserID: user, Purpose: purpose, Model: model, Price: price},
				quota.Usage{PromptTokens: prompt, CompletionTokens: completion}, domain.TokenQuota{}, now))
		}
		charge(alice.UserID, "m", usageentry.PurposeANSWER, 100, 10, nil)
		charge(alice.UserID, "m", usageentry.PurposeTITLE, 20, 2, nil)
		charge("bob", "m", usageentry.PurposeANSWER, 50, 5, nil)
		charge("bob", "p", usageentry.PurposeANSWER, 10, 1, &quota.Price{Input: 3_000_000})
		from, to := now.Add(-time.Hour), now.Add(time.Hour)
		day := now.Truncate(24 * time.Hour)

		rows, err := e.svc.UsageSummary(as(admin), from, to)
		require.NoError(t, err)
		assert.Equal(t, []quota.UsageRow{
			{Day: day, Model: "m", Attempts: 2, PromptTokens: 170, CompletionTokens: 17, TotalTokens: 187, CostMicros: 120 + 24 + 60},
			{Day: day, Model: "p", Attempts: 1, PromptTokens: 10, CompletionTokens: 1, TotalTokens: 11, CostMicros: 30},
		}, rows)
		costs, err := e.svc.UsageCosts(as(admin), from, to)
		require.NoError(t, err)
		assert.Equal(t, []quota.CostRow{
			{Day: day, Model: "m", UserID: alice.UserID, Calls: 2, PromptTokens: 120, CompletionTokens: 12, CostMicros: 144},
			{Day: day, Model: "m", UserID: "bob", Calls: 1, PromptTokens: 50, CompletionTokens: 5, CostMicros: 60},
			{Day: day, Model: "p", UserID: "bob", Calls: 1, PromptTokens: 10, CompletionTokens: 1, CostMicros: 30},
		}, costs)
		rows, err = e.svc.UsageSummary(as(admin), to, to.Add(time.Hour))
		require.NoError(t, err)
		assert.Empty(t, rows, "outside the period")

		_, err = e.svc.UsageSummary(as(alice), from, to)
		assert.Equal(t, domain.CodeForbidden, code(err))
		_, err = e.svc.UsageCosts(as(alice), from, to)
		assert.Equal(t, domain.CodeForbidden, code(err))
		for _, tc := range []struct {
			name, field string
			from, to    time.Time
		}{
			{"empty", "to", from, from},
			{"reversed", "to", to, from},
			{"too long", "from", to.Add(-367 * 24 * time.Hour), to},
		} {
			for _, report := range []func() error{
				func() error { _, err := e.svc.UsageSummary(as(admin), tc.from, tc.to); return err },
				func() error { _, err := e.svc.UsageCosts(as(admin), tc.from, tc.to); return err },
			} {
				err := report()
				require.Equal(t, domain.CodeBadUserInput, code(err), tc.name)
				var de *domain.Error
				require.ErrorAs(t, err, &de)
				assert.Equal(t, tc.field, de.Details["field"], tc.name)
			}
		}
	})
}
