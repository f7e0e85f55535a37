package tenantsettings_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestTenantSettingsValidation: invalid values are BAD_USER_INPUT naming
// the field, and nothing is written (same version, no audit event).
func TestTenantSettingsValidation(t *testing.T) {
	cases := []struct {
		name  string
		patch tenantsettings.Patch
		field string
	}{
		{"unknownStrategy", tenantsettings.Patch{HistoryStrategy: ptr(domain.HistoryStrategy("FULL_BUFFER"))}, "historyStrategy"},
		{"unknownSummarizer", tenantsettings.Patch{Summarizer: ptr(domain.Summarizer("GPT"))}, "summarizer"},
		{"unknownApproval", tenantsettings.Patch{SupportApproval: ptr(domain.SupportApproval("ANYONE"))}, "supportApproval"},
		{"ratioAboveOne", tenantsettings.Patch{BudgetRatios: &tenantsettings.BudgetRatiosPatch{History: ptr(1.5)}}, "budgetRatios.history"},
		{"ratioNegative", tenantsettings.Patch{BudgetRatios: &tenantsettings.BudgetRatiosPatch{Evidence: ptr(-0.1)}}, "budgetRatios.evidence"},
		{"ratiosSumAboveOne", tenantsettings.Patch{BudgetRatios: &tenantsettings.BudgetRatiosPatch{History: ptr(0.9)}}, "budgetRatios"},
		{"floorAboveCap", tenantsettings.Patch{BudgetRatios: &tenantsettings.BudgetRatiosPatch{EvidenceFloor: ptr(0.7)}}, "budgetRatios.evidenceFloor"},
		{"zeroRounds", tenantsettings.Patch{HistoryRounds: ptr(0)}, "historyRounds"},
		{"tooManyRounds", tenantsettings.Patch{HistoryRounds: ptr(51)}, "historyRounds"},
		{"negativeTTL", tenantsettings.Patch{ConversationIdleTTL: ptr(-time.Hour)}, "conversationIdleTTL"},
		{"zeroRate", tenantsettings.Patch{AskRatePerMinute: ptr(0.0)}, "askRatePerMinute"},
		{"scoreAboveOne", tenantsettings.Patch{MinEvidenceScore: ptr(1.2)}, "minEvidenceScore"},
		{"grantDefaultAboveMax", tenantsettings.Patch{SupportGrantDefault: ptr(30 * 24 * time.Hour)}, "supportGrantDefault"},
		{"smallWindow", tenantsettings.Patch{ModelContextWindows: map[string]int{"tiny": 100}}, "modelContextWindows"},
		{"defaultModelNotAllowed", tenantsettings.Patch{AllowedModels: []string{"gpt-4o"}, DefaultModel: ptr("gpt-3.5-turbo")}, "defaultModel"},
		{"serverModelNotAllowed", tenantsettings.Patch{AllowedModels: []string{"some-other-model"}}, "allowedModels"},
		{"emptyModelName", tenantsettings.Patch{AllowedModels: []string{" "}}, "allowedModels"},
	}
	forEach(t, func(t *testing.T, e *env) {
		before, err := e.svc.Get(as(admin))
		require.NoError(t, err)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := e.svc.Update(as(admin), tc.patch, nil)
				require.Equal(t, domain.CodeBadUserInput, code(err), "%v", err)
				assert.Equal(t, tc.field, domain.ErrorDetails(err)["field"], "%v", err)
				after, err := e.svc.Get(as(admin))
				require.NoError(t, err)
				assert.Equal(t, before, after, "nothing is written")
			})
		}
		assert.Zero(t, e.db.Client.AuditEvent.Query().Where(auditevent.Action("tenant.settings.updated")).CountX(as(admin)))

		// An allowed default model is accepted.
		_, err = e.svc.Update(as(admin), tenantsettings.Patch{
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
		initial, err := e.svc.Get(as(admin))
		require.NoError(t, err)
		agent := &viewer.Viewer{TenantID: demo.TenantID, UserID: "kate", Roles: []viewer.Role{viewer.RoleAgent}}
		for _, v := range []*viewer.Viewer{alice, agent} {
			_, err := e.svc.Get(as(v))
			assert.Equal(t, domain.CodeForbidden, code(err))
			_, err = e.svc.Update(as(v), tenantsettings.Patch{HistoryRounds: ptr(7)}, nil)
			assert.Equal(t, domain.CodeForbidden, code(err))
			err = e.db.Client.Tenant.UpdateOneID(demo.TenantID).SetSettings(domain.TenantSettings{HistoryRounds: 7}).Exec(as(v))
			assert.Error(t, err, "the privacy policy refuses a member's write")
		}
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		require.NoError(t, e.db.Client.Tenant.Create().SetID("globex").SetName("Globex").Exec(sys))

		_, err = e.svc.Update(as(stranger), tenantsettings.Patch{HistoryRounds: ptr(8)}, nil)
		require.NoError(t, err)
		theirs, err := e.svc.Get(as(stranger))
		require.NoError(t, err)
		assert.Equal(t, 8, theirs.Settings.HistoryRounds)
		ours, err := e.svc.Get(as(admin))
		require.NoError(t, err)
		assert.Equal(t, 5, ours.Settings.HistoryRounds, "another tenant's admin changed only their own tenant")
		assert.Equal(t, initial.Version, ours.Version)

		n, err := e.db.Client.Tenant.Update().SetSettings(domain.TenantSettings{HistoryRounds: 9}).Save(as(stranger))
		if err == nil {
			assert.Equal(t, 1, n, "a bulk write reaches only the admin's own tenant")
		}
		ours, err = e.svc.Get(as(admin))
		require.NoError(t, err)
		assert.Equal(t, 5, ours.Settings.HistoryRounds)
		err = e.db.Client.Tenant.UpdateOneID(demo.TenantID).SetSettings(domain.TenantSettings{HistoryRounds: 9}).Exec(as(stranger))
		assert.Error(t, err, "the privacy policy hides another tenant's row")
		ours, err = e.svc.Get(as(admin))
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
		cur, err := e.svc.Get(as(admin))
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
					_, errs[i] = e.svc.Update(as(admin), tenantsettings.Patch{HistoryRounds: ptr(6 + 2*round + i)}, ptr(cur.Version))
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
			next, err := e.svc.Get(as(admin))
			require.NoError(t, err)
			assert.Equal(t, cur.Version+1, next.Version)
			cur = next
		}
		assertGoroutinesBack(t, baseline)

		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		require.NoError(t, e.db.Client.Tenant.UpdateOneID(demo.TenantID).SetSettings(domain.TenantSettings{HistoryRounds: 3}).Exec(sys))
		_, err = e.svc.Update(as(admin), tenantsettings.Patch{HistoryRounds: ptr(4)}, ptr(cur.Version))
		require.Equal(t, domain.CodeConflict, code(err), "a write outside the API moves the version")
		assert.Equal(t, cur.Version+1, domain.ErrorDetails(err)["currentVersion"])
	})
}
