package server_test

import (
	"encoding/json"
	"testing"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestGrantUsageThroughTheAPI: an admin's grantUsage shows in the user's
// myUsage.granted and setUserQuota in myUsage.limit; a member gets the
// refusal every admin mutation gives (FORBIDDEN, the same message as
// updateTenantSettings); bad tokens are BAD_USER_INPUT naming the field;
// an unknown user is NOT_FOUND.
func TestGrantUsageThroughTheAPI(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		admin, alice := h.Client(t, "root", "admin"), h.Client(t, "alice")
		organiseDo[map[string]any](t, admin, `mutation { updateTenantSettings(input: {tokenQuotaUserTokens: 10000}) { tokenQuotaUserTokens } }`, nil, "updateTenantSettings")
		createConversation(t, alice)
		type grant struct {
			Grant struct {
				UserID string
				Tokens int
				Note   string
				Period string
			}
		}
		g := organiseDo[grant](t, admin, `mutation { grantUsage(input: {userId: "alice", tokens: 2500, note: "launch"}) { grant { userId tokens note period } } }`, nil, "grantUsage")
		if g.Grant.UserID != "alice" || g.Grant.Tokens != 2500 || g.Grant.Note != "launch" || g.Grant.Period != "DAILY" {
			t.Fatalf("grant: %+v", g)
		}
		organiseDo[map[string]any](t, admin, `mutation { setUserQuota(userId: "alice", tokens: 20000) { userId tokens } }`, nil, "setUserQuota")
		var mine struct {
			MyUsage struct{ Granted, Limit int }
		}
		mustDo(t, alice, `{ myUsage { granted limit } }`, nil, &mine)
		if mine.MyUsage.Granted != 2500 || mine.MyUsage.Limit != 20000 {
			t.Fatalf("myUsage: %+v", mine.MyUsage)
		}

		refusal := organiseErr(t, alice, `mutation { grantUsage(input: {userId: "alice", tokens: 1}) { grant { tokens } } }`, nil)
		settings := organiseErr(t, alice, `mutation { updateTenantSettings(input: {tokenQuotaUserTokens: 1}) { tokenQuotaUserTokens } }`, nil)
		if refusal.Code() != "FORBIDDEN" || refusal.Message != settings.Message {
			t.Fatalf("member: %s %q, updateTenantSettings: %q", refusal.Code(), refusal.Message, settings.Message)
		}
		if e := organiseErr(t, admin, `mutation { grantUsage(input: {userId: "alice", tokens: -1}) { grant { tokens } } }`, nil); e.Code() != "BAD_USER_INPUT" || e.Extensions["field"] != "tokens" {
			t.Fatalf("negative: %s %v", e.Code(), e.Extensions)
		}
		unknown := organiseErr(t, admin, `mutation { grantUsage(input: {userId: "nobody", tokens: 1}) { grant { tokens } } }`, nil)
		other := organiseErr(t, admin, `mutation { setUserQuota(userId: "nobody-else", tokens: 1) { tokens } }`, nil)
		if unknown.Code() != "NOT_FOUND" || other.Code() != "NOT_FOUND" {
			t.Fatalf("unknown user: %s, %s", unknown.Code(), other.Code())
		}
		a, _ := json.Marshal(unknown.Extensions)
		b, _ := json.Marshal(other.Extensions)
		if unknown.Message != other.Message || string(a) != string(b) {
			t.Fatalf("NOT_FOUND differs: %q %s / %q %s", unknown.Message, a, other.Message, b)
		}
	})
}
