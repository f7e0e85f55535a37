package chat_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/viewer"
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
		before, err := e.eng.TenantSettings(as(admin))
		require.NoError(t, err)
		assert.Equal(t, domain.DefaultTenantSettings(), before.Settings)

		got, err := e.eng.UpdateTenantSettings(as(admin), chat.TenantSettingsPatch{
			HistoryStrategy:     ptr(domain.StrategyPrioritized),
			ConversationIdleTTL: ptr(2 * time.Hour),
			BudgetRatios:        &chat.BudgetRatiosPatch{History: ptr(0.30)},
		}, ptr(before.Version))
		require.NoError(t, err)
		assert.Equal(t, before.Version+1, got.Version)
		want := before.Settings
		want.HistoryStrategy = domain.StrategyPrioritized
		want.ConversationIdleTTL = domain.Duration{Duration: 2 * time.Hour}
		want.BudgetRatios.History = 0.30
		assert.Equal(t, want, got.Settings, "only the given fields change")
		reread, err := e.eng.TenantSettings(as(admin))
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

		same, err := e.eng.UpdateTenantSettings(as(admin), chat.TenantSettingsPatch{HistoryStrategy: ptr(domain.StrategyPrioritized)}, nil)
		require.NoError(t, err)
		assert.Equal(t, got.Version, same.Version, "a patch that changes nothing writes nothing")
		assert.Equal(t, 1, e.db.Client.AuditEvent.Query().Where(auditevent.Action("tenant.settings.updated")).CountX(as(admin)))
	})
}

// TestTenantSettingsValidation: invalid values are BAD_USER_INPUT naming
// the field, and nothing is written (same version, no audit event).
func TestTenantSettingsValidation(t *testing.T) {
	cases := []struct {
		name  string
		patch chat.TenantSettingsPatch
		field string
	}{
		{"unknownStrategy", chat.TenantSettingsPatch{HistoryStrategy: ptr(domain.HistoryStrategy("FULL_BUFFER"))}, "historyStrategy"},
		{"unknownSummarizer", chat.TenantSettingsPatch{Summarizer: ptr(domain.Summarizer("GPT"))}, "summarizer"},
		{"unknownApproval", chat.TenantSettingsPatch{SupportApproval: ptr(domain.SupportApproval("ANYONE"))}, "supportApproval"},
		{"ratioAboveOne", chat.TenantSettingsPatch{BudgetRatios: &chat.BudgetRatiosPatch{History: ptr(1.5)}}, "budgetRatios.history"},
		{"ratioNegative", chat.TenantSettingsPatch{BudgetRatios: &chat.BudgetRatiosPatch{Evidence: ptr(-0.1)}}, "budgetRatios.evidence"},
		{"ratiosSumAboveOne", chat.TenantSettingsPatch{BudgetRatios: &chat.BudgetRatiosPatch{History: ptr(0.9)}}, "budgetRatios"},
		{"floorAboveCap", chat.TenantSettingsPatch{BudgetRatios: &chat.BudgetRatiosPatch{EvidenceFloor: ptr(0.7)}}, "budgetRatios.evidenceFloor"},
		{"zeroRounds", chat.TenantSettingsPatch{HistoryRounds: ptr(0)}, "historyRounds"},
		{"tooManyRounds", chat.TenantSettingsPatch{HistoryRounds: ptr(51)}, "historyRounds"},
		{"negativeTTL", chat.TenantSettingsPatch{ConversationIdleTTL: ptr(-time.Hour)}, "conversationIdleTTL"},
		{"zeroRate", chat.TenantSettingsPatch{AskRatePerMinute: ptr(0.0)}, "askRatePerMinute"},
		{"scoreAboveOne", chat.TenantSettingsPatch{MinEvidenceScore: ptr(1.2)}, "minEvidenceScore"},
		{"grantDefaultAboveMax", chat.TenantSettingsPatch{SupportGrantDefault: ptr(30 * 24 * time.Hour)}, "supportGrantDefault"},
		{"smallWindow", chat.TenantSettingsPatch{ModelContextWindows: map[string]int{"tiny": 100}}, "modelContextWindows"},
		{"defaultModelNotAllowed", chat.TenantSettingsPatch{AllowedModels: []string{"gpt-4o"}, DefaultModel: ptr("gpt-3.5-turbo")}, "defaultModel"},
		{"serverModelNotAllowed", chat.TenantSettingsPatch{AllowedModels: []string{"some-other-model"}}, "allowedModels"},
		{"emptyModelName", chat.TenantSettingsPatch{AllowedModels: []string{" "}}, "allowedModels"},
	}
	forEach(t, func(t *testing.T, e *env) {
		before, err := e.eng.TenantSettings(as(admin))
		require.NoError(t, err)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := e.eng.UpdateTenantSettings(as(admin), tc.patch, nil)
				require.Equal(t, domain.CodeBadUserInput, code(err), "%v", err)
				assert.Equal(t, tc.field, domain.ErrorDetails(err)["field"], "%v", err)
				after, err := e.eng.TenantSettings(as(admin))
				require.NoError(t, err)
				assert.Equal(t, before, after, "nothing is written")
			})
		}
		assert.Zero(t, e.db.Client.AuditEvent.Query().Where(auditevent.Action("tenant.settings.updated")).CountX(as(admin)))

		// An allowed default model is accepted.
		_, err = e.eng.UpdateTenantSettings(as(admin), chat.TenantSettingsPatch{
			AllowedModels: []string{"gpt-4o", "gpt-4o-mini"}, DefaultModel: ptr("gpt-4o-mini"),
		}, nil)
		require.NoError(t, err)
	})
}

// TestTenantSettingsAccess: members and agents are FORBIDDEN to read or
// change settings; an admin of another tenant reads and changes only their
// own tenant; the Ent privacy policy refuses a direct write across tenants.
func TestTenantSettingsAccess(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		initial, err := e.eng.TenantSettings(as(admin))
		require.NoError(t, err)
		agent := &viewer.Viewer{TenantID: demo.TenantID, UserID: "kate", Roles: []viewer.Role{viewer.RoleAgent}}
		for _, v := range []*viewer.Viewer{alice, agent} {
			_, err := e.eng.TenantSettings(as(v))
			assert.Equal(t, domain.CodeForbidden, code(err))
			_, err = e.eng.UpdateTenantSettings(as(v), chat.TenantSettingsPatch{HistoryRounds: ptr(7)}, nil)
			assert.Equal(t, domain.CodeForbidden, code(err))
			err = e.db.Client.Tenant.UpdateOneID(demo.TenantID).SetSettings(domain.TenantSettings{HistoryRounds: 7}).Exec(as(v))
			assert.Error(t, err, "the privacy policy refuses a member's write")
		}
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		require.NoError(t, e.db.Client.Tenant.Create().SetID("globex").SetName("Globex").Exec(sys))

		_, err = e.eng.UpdateTenantSettings(as(stranger), chat.TenantSettingsPatch{HistoryRounds: ptr(8)}, nil)
		require.NoError(t, err)
		theirs, err := e.eng.TenantSettings(as(stranger))
		require.NoError(t, err)
		assert.Equal(t, 8, theirs.Settings.HistoryRounds)
		ours, err := e.eng.TenantSettings(as(admin))
		require.NoError(t, err)
		assert.Equal(t, 5, ours.Settings.HistoryRounds, "another tenant's admin changed only their own tenant")
		assert.Equal(t, initial.Version, ours.Version)

		n, err := e.db.Client.Tenant.Update().SetSettings(domain.TenantSettings{HistoryRounds: 9}).Save(as(stranger))
		if err == nil {
			assert.Equal(t, 1, n, "a bulk write reaches only the admin's own tenant")
		}
		ours, err = e.eng.TenantSettings(as(admin))
		require.NoError(t, err)
		assert.Equal(t, 5, ours.Settings.HistoryRounds)
		err = e.db.Client.Tenant.UpdateOneID(demo.TenantID).SetSettings(domain.TenantSettings{HistoryRounds: 9}).Exec(as(stranger))
		assert.Error(t, err, "the privacy policy hides another tenant's row")
		ours, err = e.eng.TenantSettings(as(admin))
		require.NoError(t, err)
		assert.Equal(t, 5, ours.Settings.HistoryRounds)
	})
}

// TestTenantSettingsExpectedVersion: a stale expected version is CONFLICT
// with the current version; two concurrent updates with the same expected
// version: exactly one wins. A write outside the API (provisioning) also
// moves the version.
func TestTenantSettingsExpectedVersion(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		baseline := goroutines()
		cur, err := e.eng.TenantSettings(as(admin))
		require.NoError(t, err)
		for round := range 4 {
			var wg sync.WaitGroup
			start := make(chan struct{})
			errs := make([]error, 2)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					_, errs[i] = e.eng.UpdateTenantSettings(as(admin), chat.TenantSettingsPatch{HistoryRounds: ptr(6 + 2*round + i)}, ptr(cur.Version))
				}()
			}
			close(start)
			wg.Wait()
			wins := 0
			for _, err := range errs {
				switch code(err) {
				case "":
					wins++
				case domain.CodeConflict:
					assert.Equal(t, cur.Version+1, domain.ErrorDetails(err)["currentVersion"])
				default:
					t.Fatalf("round %d: %v", round, err)
				}
			}
			require.Equal(t, 1, wins, "round %d: exactly one update wins", round)
			next, err := e.eng.TenantSettings(as(admin))
			require.NoError(t, err)
			assert.Equal(t, cur.Version+1, next.Version)
			cur = next
		}
		assertGoroutinesBack(t, baseline)

		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		require.NoError(t, e.db.Client.Tenant.UpdateOneID(demo.TenantID).SetSettings(domain.TenantSettings{HistoryRounds: 3}).Exec(sys))
		_, err = e.eng.UpdateTenantSettings(as(admin), chat.TenantSettingsPatch{HistoryRounds: ptr(4)}, ptr(cur.Version))
		require.Equal(t, domain.CodeConflict, code(err), "a write outside the API moves the version")
		assert.Equal(t, cur.Version+1, domain.ErrorDetails(err)["currentVersion"])
	})
}

// TestConversationHistoryStrategy: a conversation may choose its own
// history strategy at creation or later (null returns to the tenant's); an
// unknown one is BAD_USER_INPUT naming historyStrategy and creates or
// changes nothing; only the owner may change it.
func TestConversationHistoryStrategy(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		c, err := e.eng.CreateConversation(as(alice), chat.CreateConversationInput{HistoryStrategy: ptr("SLIDING_WINDOW")})
		require.NoError(t, err)
		require.NotNil(t, c.HistoryStrategy)
		assert.Equal(t, domain.StrategySlidingWindow, *c.HistoryStrategy)

		plain := e.conversation(t, alice)
		assert.Nil(t, plain.HistoryStrategy, "no strategy follows the tenant's")

		count := e.db.Client.Conversation.Query().CountX(as(alice))
		_, err = e.eng.CreateConversation(as(alice), chat.CreateConversationInput{HistoryStrategy: ptr("full_buffer")})
		require.Equal(t, domain.CodeBadUserInput, code(err))
		assert.Equal(t, "historyStrategy", domain.ErrorDetails(err)["field"])
		assert.Equal(t, count, e.db.Client.Conversation.Query().CountX(as(alice)), "nothing is created")

		_, err = e.eng.SetConversationHistoryStrategy(as(alice), c.ID, ptr("SOMETHING"))
		require.Equal(t, domain.CodeBadUserInput, code(err))
		assert.Equal(t, "historyStrategy", domain.ErrorDetails(err)["field"])
		_, err = e.eng.SetConversationHistoryStrategy(as(bob), c.ID, ptr("HYBRID"))
		assert.Equal(t, domain.CodeNotFound, code(err))
		_, err = e.eng.SetConversationHistoryStrategy(as(admin), c.ID, ptr("HYBRID"))
		assert.Equal(t, domain.CodeNotFound, code(err), "only the owner chooses")

		got, err := e.eng.SetConversationHistoryStrategy(as(alice), c.ID, ptr("SEMANTIC_SUMMARY"), chat.ExpectVersion(c.Version))
		require.NoError(t, err)
		assert.Equal(t, domain.StrategySemanticSummary, *got.HistoryStrategy)
		assert.Equal(t, c.Version+1, got.Version)
		same, err := e.eng.SetConversationHistoryStrategy(as(alice), c.ID, ptr("SEMANTIC_SUMMARY"))
		require.NoError(t, err)
		assert.Equal(t, got.Version, same.Version, "setting the same strategy is a no-op")
		cleared, err := e.eng.SetConversationHistoryStrategy(as(alice), c.ID, nil)
		require.NoError(t, err)
		assert.Nil(t, cleared.HistoryStrategy)
		stored := e.db.Client.Conversation.GetX(as(alice), c.ID)
		assert.Nil(t, stored.HistoryStrategy)
	})
}
