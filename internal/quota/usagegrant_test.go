package quota_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/quota"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestGrantErrors: grants a member asks for are FORBIDDEN like every admin
// mutation; tokens out of range and an over-long note are BAD_USER_INPUT
// naming the field; an unknown user and another tenant's user are
// NOT_FOUND with identical messages; nothing is written for any of them.
// SetUserQuota refuses alike.
func TestGrantErrors(t *testing.T) {
	forEach(t, domain.TokenQuota{}, func(t *testing.T, e *env) {
		e.conversation(t, alice, e.kb)
		e.foreignUser(t)
		cases := []struct {
			name  string
			as    *viewer.Viewer
			in    quota.GrantInput
			code  domain.Code
			field string
		}{
			{"member", alice, quota.GrantInput{UserID: alice.UserID, Tokens: 10}, domain.CodeForbidden, ""},
			{"zero tokens", admin, quota.GrantInput{UserID: alice.UserID}, domain.CodeBadUserInput, "tokens"},
			{"negative tokens", admin, quota.GrantInput{UserID: alice.UserID, Tokens: -5}, domain.CodeBadUserInput, "tokens"},
			{"too many tokens", admin, quota.GrantInput{UserID: alice.UserID, Tokens: quota.MaxGrantTokens + 1}, domain.CodeBadUserInput, "tokens"},
			{"long note", admin, quota.GrantInput{UserID: alice.UserID, Tokens: 1, Note: strings.Repeat("é", quota.MaxGrantNote+1)}, domain.CodeBadUserInput, "note"},
			{"unknown user", admin, quota.GrantInput{UserID: "nobody", Tokens: 10}, domain.CodeNotFound, ""},
			{"foreign user", admin, quota.GrantInput{UserID: "gus", Tokens: 10}, domain.CodeNotFound, ""},
		}
		msgs := map[string]string{}
		for _, tc := range cases {
			_, err := e.svc.GrantUsage(as(tc.as), tc.in)
			require.Equal(t, tc.code, code(err), "%s: %v", tc.name, err)
			if tc.field != "" {
				var de *domain.Error
				require.ErrorAs(t, err, &de)
				assert.Equal(t, tc.field, de.Details["field"], tc.name)
			}
			msgs[tc.name] = err.Error()
			_, err = e.svc.SetUserQuota(as(tc.as), tc.in.UserID, &tc.in.Tokens)
			if tc.name != "zero tokens" && tc.name != "long note" {
				require.Equal(t, tc.code, code(err), "setUserQuota %s: %v", tc.name, err)
			}
		}
		assert.Equal(t, msgs["unknown user"], msgs["foreign user"], "a foreign user is indistinguishable from an unknown one")
		assert.Empty(t, ledger(t, e.db), "no GRANT was written")
	})
}

// TestGrantAndOverrideShowInMyUsage: a grant appends a GRANT entry for the
// current period, adds to the user's counter and is audited with its
// note; an override replaces the tenant's per-user limit in myUsage, 0
// lifts it and removing it restores the setting, each change audited. A
// user known only by a usage entry may be granted too.
func TestGrantAndOverrideShowInMyUsage(t *testing.T) {
	q := domain.TokenQuota{Period: domain.QuotaMonthly, Kind: domain.QuotaHard, UserTokens: 1000, TenantTokens: 50_000}
	forEach(t, q, func(t *testing.T, e *env) {
		e.conversation(t, alice, e.kb)
		g, err := e.svc.GrantUsage(as(admin), quota.GrantInput{UserID: alice.UserID, Tokens: 300, Note: "launch week"})
		require.NoError(t, err)
		assert.Equal(t, usageentry.KindGRANT, g.Entry.Kind)
		assert.Equal(t, 300, g.Entry.PromptTokens)
		assert.Equal(t, "launch week", g.Note)
		assert.Equal(t, quota.PeriodEnd(domain.QuotaMonthly, *g.Entry.PeriodStart), g.ResetsAt)
		assert.Equal(t, int64(300), totals(t, e.db, alice.UserID, q).UserGranted)
		ev, err := e.db.Client.AuditEvent.Query().Where(auditevent.Action("quota.grant")).Only(as(admin))
		require.NoError(t, err)
		assert.Equal(t, admin.UserID, ev.Actor)
		assert.Equal(t, alice.UserID, ev.TargetID)
		assert.Equal(t, "launch week", ev.Reason)

		u, err := e.svc.MyUsage(as(alice))
		require.NoError(t, err)
		assert.Equal(t, int64(300), u.Granted)
		assert.Equal(t, int64(1000), *u.Limit)
		assert.Equal(t, int64(50_000), *u.TenantLimit)
		assert.Equal(t, domain.QuotaMonthly, u.Period)
		assert.Equal(t, domain.QuotaHard, u.Kind)

		set := func(tokens *int64) {
			t.Helper()
			got, err := e.svc.SetUserQuota(as(admin), alice.UserID, tokens)
			require.NoError(t, err)
			assert.Equal(t, tokens, got)
		}
		two, zero := int64(2000), int64(0)
		set(&two)
		set(&two) // setting again updates the one override
		u, err = e.svc.MyUsage(as(alice))
		require.NoError(t, err)
		assert.Equal(t, two, *u.Limit)
		set(&zero)
		u, err = e.svc.MyUsage(as(alice))
		require.NoError(t, err)
		assert.Nil(t, u.Limit, "0: no per-user limit")
		set(nil)
		u, err = e.svc.MyUsage(as(alice))
		require.NoError(t, err)
		assert.Equal(t, int64(1000), *u.Limit, "removed: the setting again")
		n, err := e.db.Client.AuditEvent.Query().Where(auditevent.ActionHasPrefix("quota.user.")).Count(as(admin))
		require.NoError(t, err)
		assert.Equal(t, 4, n)

		// bob has no conversation, only usage.
		require.NoError(t, quota.New(e.db, nil).Charge(as(admin), quota.Call{TenantID: admin.TenantID, UserID: "bob", Purpose: usageentry.PurposeTITLE, Model: "m"},
			quota.Usage{PromptTokens: 5}, q, e.clock.now()))
		_, err = e.svc.GrantUsage(as(admin), quota.GrantInput{UserID: "bob", Tokens: 1})
		require.NoError(t, err)
	})
}

// TestMyUsageWithoutAQuota: without a quota myUsage sums the viewer's
// settled entries of the current UTC day and names no period or limit.
func TestMyUsageWithoutAQuota(t *testing.T) {
	forEach(t, domain.TokenQuota{}, func(t *testing.T, e *env) {
		m := quota.New(e.db, nil)
		for _, user := range []string{alice.UserID, alice.UserID, "bob"} {
			require.NoError(t, m.Charge(as(admin), quota.Call{TenantID: admin.TenantID, UserID: user, Purpose: usageentry.PurposeANSWER, Model: "m"},
				quota.Usage{PromptTokens: 10, CompletionTokens: 5}, domain.TokenQuota{}, e.clock.now()))
		}
		u, err := e.svc.MyUsage(as(alice))
		require.NoError(t, err)
		assert.Equal(t, &quota.MyUsage{Used: 30}, u)
	})
}
