package chat_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/tenantsettings"
)

func ptr[T any](v T) *T { return &v }

// TestTenantSettingsUpdate: an admin reads the tenant's settings with
// defaults filled in and changes only the fields given; the version goes
// up; the engine uses the new values at once (a new conversation's
// expiry); every change writes one audit event naming the changed fields
// with their old and new values; a patch that changes nothing writes
// nothing.
func TestTenantSettingsUpdate(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		before, err := e.settings.Get(as(admin))
		require.NoError(t, err)
		assert.Equal(t, domain.DefaultTenantSettings(), before.Settings)

		got, err := e.settings.Update(as(admin), tenantsettings.Patch{
			HistoryStrategy:     ptr(domain.StrategyPrioritized),
			ConversationIdleTTL: ptr(2 * time.Hour),
			BudgetRatios:        &tenantsettings.BudgetRatiosPatch{History: ptr(0.30)},
		}, ptr(before.Version))
		require.NoError(t, err)
		assert.Equal(t, before.Version+1, got.Version)
		want := before.Settings
		want.HistoryStrategy = domain.StrategyPrioritized
		want.ConversationIdleTTL = domain.Duration{Duration: 2 * time.Hour}
		want.BudgetRatios.History = 0.30
		assert.Equal(t, want, got.Settings, "only the given fields change")
		reread, err := e.settings.Get(as(admin))
		require.NoError(t, err)
		assert.Equal(t, got, reread)

		conv := e.conversation(t, alice)
		assert.WithinDuration(t, e.clock.now().Add(2*time.Hour), conv.ExpiresAt, time.Minute, "the new idle TTL applies at once")

		events := e.db.Client.AuditEvent.Query().Where(auditevent.Action("tenant.settings.updated")).AllX(as(admin))
		require.Len(t, events, 1)
		ev := events[0]
		assert.Equal(t, "root", ev.Actor)
		assert.Equal(t, "Tenant", ev.TargetType)
		assert.Equal(t, demo.TenantID, ev.TargetID)
		assert.Equal(t, map[string]string{
			"fields":                   "budgetRatios.history,conversationIdleTTL,historyStrategy",
			"old.budgetRatios.history": "0.35", "new.budgetRatios.history": "0.3",
			"old.conversationIdleTTL": `"168h0m0s"`, "new.conversationIdleTTL": `"2h0m0s"`,
			"old.historyStrategy": `"HYBRID"`, "new.historyStrategy": `"PRIORITIZED"`,
			"version": "2",
		}, ev.Metadata)

		same, err := e.settings.Update(as(admin), tenantsettings.Patch{HistoryStrategy: ptr(domain.StrategyPrioritized)}, nil)
		require.NoError(t, err)
		assert.Equal(t, got.Version, same.Version, "a patch that changes nothing writes nothing")
		assert.Equal(t, 1, e.db.Client.AuditEvent.Query().Where(auditevent.Action("tenant.settings.updated")).CountX(as(admin)))
	})
}
