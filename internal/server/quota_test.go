package server_test

import (
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestTokenQuotaThroughTheAPI: an admin sets a HARD per-user token quota
// with updateTenantSettings; an ask that would pass it is QUOTA_EXCEEDED
// with extensions.resetsAt (RFC 3339, the next UTC midnight) and writes
// no message; myUsage shows the viewer's used tokens, the limit and the
// reset; usageCosts is the admin's (a member is FORBIDDEN) and shows the
// settled usage by day, model and user. A bad period is BAD_USER_INPUT.
func TestTokenQuotaThroughTheAPI(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		admin, alice := h.Client(t, "root", "admin"), h.Client(t, "alice")
		if e := organiseErr(t, admin, `mutation { updateTenantSettings(input: {tokenQuotaPeriod: "WEEKLY"}) { tokenQuotaPeriod } }`, nil); e.Code() != "BAD_USER_INPUT" || e.Extensions["field"] != "tokenQuotaPeriod" {
			t.Fatalf("bad period: %s %v", e.Code(), e.Extensions)
		}
		type settings struct {
			TokenQuotaPeriod, TokenQuotaKind string
			TokenQuotaUserTokens             int
		}
		// One answer's reservation (prompt budget 6000 + answer 800) fits,
		// a second does not while the first's tokens count.
		set := organiseDo[settings](t, admin, `mutation { updateTenantSettings(input: {tokenQuotaUserTokens: 10000}) { tokenQuotaPeriod tokenQuotaKind tokenQuotaUserTokens } }`, nil, "updateTenantSettings")
		if set != (settings{"DAILY", "HARD", 10000}) {
			t.Fatalf("set: %+v", set)
		}
		askQ := `mutation($c: ID!, $k: String!) { ask(input: {conversationId: $c, clientMessageId: $k, question: "上传文件最大是多少？"}) { attempt { id } } }`
		conv := createConversation(t, alice)
		var first struct {
			Ask struct{ Attempt struct{ ID string } }
		}
		mustDo(t, alice, askQ, map[string]any{"c": conv, "k": "q-1"}, &first)
		waitDone(t, alice, first.Ask.Attempt.ID)

		type usage struct {
			Used, Reserved int
			Limit          *int
			ResetsAt       *string
			Period, Kind   *string
			OverSoftLimit  bool
		}
		var mine struct{ MyUsage usage }
		deadline := time.Now().Add(30 * time.Second)
		for {
			mustDo(t, alice, `{ myUsage { used reserved limit resetsAt period kind overSoftLimit } }`, nil, &mine)
			if mine.MyUsage.Reserved == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		u := mine.MyUsage
		now := time.Now().UTC()
		reset := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
		if u.Used <= 0 || u.Reserved != 0 || u.Limit == nil || *u.Limit != 10000 || u.ResetsAt == nil || *u.ResetsAt != reset || *u.Period != "DAILY" || *u.Kind != "HARD" {
			t.Fatalf("myUsage: %+v", u)
		}

		// Lower the limit below what one more reservation needs.
		organiseDo[settings](t, admin, `mutation($n: Int) { updateTenantSettings(input: {tokenQuotaUserTokens: $n}) { tokenQuotaUserTokens } }`, map[string]any{"n": u.Used + 100}, "updateTenantSettings")
		other := createConversation(t, alice)
		e := organiseErr(t, alice, askQ, map[string]any{"c": other, "k": "q-2"})
		if e.Code() != "QUOTA_EXCEEDED" || e.Extensions["resetsAt"] != reset {
			t.Fatalf("over quota: %s %v", e.Code(), e.Extensions)
		}
		var msgs struct {
			Conversation struct{ Messages struct{ TotalCount int } }
		}
		mustDo(t, alice, `query($c: ID!) { conversation(id: $c) { messages { totalCount } } }`, map[string]any{"c": other}, &msgs)
		if msgs.Conversation.Messages.TotalCount != 0 {
			t.Errorf("a refused ask wrote %d messages", msgs.Conversation.Messages.TotalCount)
		}

		costQ := `query($f: Time!, $t: Time!) { usageCosts(from: $f, to: $t) { day model userId calls promptTokens completionTokens costMicros } }`
		vars := map[string]any{"f": now.Add(-time.Hour).Format(time.RFC3339), "t": now.Add(time.Hour).Format(time.RFC3339)}
		if e := organiseErr(t, alice, costQ, vars); e.Code() != "FORBIDDEN" {
			t.Errorf("member usageCosts: %s", e.Code())
		}
		var costs struct {
			UsageCosts []struct {
				Day, Model, UserID                    string
				Calls, PromptTokens, CompletionTokens int
			}
		}
		mustDo(t, admin, costQ, vars, &costs)
		if len(costs.UsageCosts) != 1 || costs.UsageCosts[0].UserID != "alice" || costs.UsageCosts[0].Calls != 1 ||
			costs.UsageCosts[0].PromptTokens+costs.UsageCosts[0].CompletionTokens != u.Used {
			t.Errorf("usageCosts: %+v (alice used %d)", costs.UsageCosts, u.Used)
		}
	})
}
