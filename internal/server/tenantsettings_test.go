package server_test

import (
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/viewer"
)

const tenantSettingsFields = `version conversationIdleTTL conversationMaxAge retentionDays historyStrategy historyRounds
	budgetRatios { system evidence history input evidenceFloor evidenceCap }
	modelContextWindows { model contextWindow } summarizer defaultModel allowedModels askRatePerMinute supportApproval supportGrantDefault`

type settingsView struct {
	Version             int
	ConversationIdleTTL string
	ConversationMaxAge  string
	RetentionDays       int
	HistoryStrategy     string
	HistoryRounds       int
	BudgetRatios        domain.BudgetRatios
	ModelContextWindows []struct {
		Model         string
		ContextWindow int
	}
	Summarizer          string
	DefaultModel        string
	AllowedModels       []string
	AskRatePerMinute    float64
	SupportApproval     string
	SupportGrantDefault string
}

// TestTenantSettingsThroughTheAPI: an admin reads the tenant's settings
// (defaults filled in) and changes some of them; only those change, the
// version goes up, the change is audited with its fields and values, and
// the engine uses it. Invalid values are BAD_USER_INPUT with
// extensions.field naming the setting; a stale expectedVersion is CONFLICT
// with extensions.currentVersion; neither changes anything. Members and
// agents are FORBIDDEN; another tenant's admin sees and changes only their
// own tenant's settings.
func TestTenantSettingsThroughTheAPI(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		admin := h.Client(t, "root", "admin")
		read := func(c *gqlclient.Client) settingsView {
			var out struct{ TenantSettings settingsView }
			mustDo(t, c, `{ tenantSettings { `+tenantSettingsFields+` } }`, nil, &out)
			return out.TenantSettings
		}
		before := read(admin)
		d := domain.DefaultTenantSettings()
		if before.HistoryStrategy != "HYBRID" || before.ConversationIdleTTL != "168h0m0s" || before.BudgetRatios != d.BudgetRatios ||
			before.Summarizer != "DETERMINISTIC" || before.SupportGrantDefault != "24h0m0s" || before.AllowedModels == nil {
			t.Fatalf("defaults: %+v", before)
		}

		for _, who := range []*gqlclient.Client{h.Client(t, "alice"), h.Client(t, "kate", "agent")} {
			if code, e := errorCode(t, who, `{ tenantSettings { version } }`, nil); code != "FORBIDDEN" {
				t.Errorf("non-admin read: %s %+v", code, e)
			}
			if code, e := errorCode(t, who, `mutation { updateTenantSettings(input: {historyRounds: 7}) { version } }`, nil); code != "FORBIDDEN" {
				t.Errorf("non-admin update: %s %+v", code, e)
			}
		}

		const update = `mutation($in: UpdateTenantSettingsInput!, $v: Int) { updateTenantSettings(input: $in, expectedVersion: $v) { ` + tenantSettingsFields + ` } }`
		invalid := []struct {
			name  string
			input map[string]any
			field string
		}{
			{"unknownStrategy", map[string]any{"historyStrategy": "FULL_BUFFER"}, "historyStrategy"},
			{"unknownSummarizer", map[string]any{"summarizer": "llm"}, "summarizer"},
			{"ratioOutOfRange", map[string]any{"budgetRatios": map[string]any{"history": 1.5}}, "budgetRatios.history"},
			{"ratiosSumAboveOne", map[string]any{"budgetRatios": map[string]any{"history": 0.6, "evidence": 0.5}}, "budgetRatios"},
			{"badDuration", map[string]any{"conversationIdleTTL": "tomorrow"}, "conversationIdleTTL"},
			{"zeroRetention", map[string]any{"retentionDays": 0}, "retentionDays"},
			{"smallWindow", map[string]any{"modelContextWindows": []map[string]any{{"model": "tiny", "contextWindow": 10}}}, "modelContextWindows"},
			{"defaultModelNotAllowed", map[string]any{"allowedModels": []string{"gpt-4o"}, "defaultModel": "gpt-3.5-turbo"}, "defaultModel"},
		}
		for _, tc := range invalid {
			code, e := errorCode(t, admin, update, map[string]any{"in": tc.input})
			if code != "BAD_USER_INPUT" || e.Extensions["field"] != tc.field {
				t.Errorf("%s: %s field %v (%s), want BAD_USER_INPUT field %s", tc.name, code, e.Extensions["field"], e.Message, tc.field)
			}
		}
		if got := conflictVersion(t, admin, update, map[string]any{"in": map[string]any{"historyRounds": 7}, "v": before.Version + 1}); got != before.Version {
			t.Errorf("stale expectedVersion: currentVersion %d, want %d", got, before.Version)
		}
		if after := read(admin); !reflect.DeepEqual(after, before) {
			t.Fatalf("a refused update changed the settings:\n%+v\n%+v", before, after)
		}

		var out struct{ UpdateTenantSettings settingsView }
		mustDo(t, admin, update, map[string]any{"v": before.Version, "in": map[string]any{
			"historyStrategy":     "PRIORITIZED",
			"conversationIdleTTL": "2h",
			"budgetRatios":        map[string]any{"history": 0.3},
			"modelContextWindows": []map[string]any{{"model": "small-model", "contextWindow": 4096}},
		}}, &out)
		got := out.UpdateTenantSettings
		want := before
		want.Version = before.Version + 1
		want.HistoryStrategy = "PRIORITIZED"
		want.ConversationIdleTTL = "2h0m0s"
		want.BudgetRatios.History = 0.3
		want.ModelContextWindows = got.ModelContextWindows
		if !reflect.DeepEqual(got, want) || len(got.ModelContextWindows) != 1 || got.ModelContextWindows[0].ContextWindow != 4096 {
			t.Errorf("after the update:\n got %+v\nwant %+v", got, want)
		}
		if after := read(admin); !reflect.DeepEqual(after, got) {
			t.Errorf("reread %+v", after)
		}
		events := h.DB.Client.AuditEvent.Query().Where(auditevent.Action("tenant.settings.updated")).AllX(sysCtx())
		if len(events) != 1 {
			t.Fatalf("%d audit events, want 1", len(events))
		}
		m := events[0].Metadata
		if events[0].Actor != "root" || m["fields"] != "budgetRatios.history,conversationIdleTTL,historyStrategy,modelContextWindows" ||
			m["old.historyStrategy"] != `"HYBRID"` || m["new.historyStrategy"] != `"PRIORITIZED"` || m["new.conversationIdleTTL"] != `"2h0m0s"` {
			t.Errorf("audit event %+v %v", events[0], m)
		}

		// The engine uses the new idle TTL at once.
		var conv struct {
			CreateConversation struct{ CreatedAt, ExpiresAt string }
		}
		mustDo(t, h.Client(t, "alice"), `mutation { createConversation(input: {}) { createdAt expiresAt } }`, nil, &conv)
		created, err1 := time.Parse(time.RFC3339Nano, conv.CreateConversation.CreatedAt)
		expires, err2 := time.Parse(time.RFC3339Nano, conv.CreateConversation.ExpiresAt)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if d := expires.Sub(created); d < 2*time.Hour-time.Minute || d > 2*time.Hour+time.Minute {
			t.Errorf("new conversation expires %v after creation, want the new idle TTL 2h", d)
		}

		// Another tenant's admin: their own settings only.
		h.DB.Client.Tenant.Create().SetID("globex").SetName("Globex").ExecX(viewer.SystemJobContext(ctxT(t), viewer.JobProvision))
		mallory := gqlclient.New(h.URL, h.Token(t, "globex", "mallory", []string{"admin"}))
		var theirs struct{ UpdateTenantSettings settingsView }
		mustDo(t, mallory, `mutation { updateTenantSettings(input: {historyRounds: 9}) { historyRounds version } }`, nil, &theirs)
		if theirs.UpdateTenantSettings.HistoryRounds != 9 || theirs.UpdateTenantSettings.Version != 1 {
			t.Errorf("globex settings %+v", theirs.UpdateTenantSettings)
		}
		if after := read(admin); !reflect.DeepEqual(after, got) {
			t.Errorf("another tenant's admin changed ours: %+v", after)
		}
	})
}

// TestTenantSettingsTypeCoversEverySetting: every field of
// domain.TenantSettings (by its JSON name) is a field of the TenantSettings
// type and of UpdateTenantSettingsInput, so that a new setting cannot be
// forgotten by the API.
func TestTenantSettingsTypeCoversEverySetting(t *testing.T) {
	h := start(t, servertest.Options{})
	s := introspect(t, h.Client(t, "alice"))
	var want []string
	ty := reflect.TypeOf(domain.TenantSettings{})
	for i := range ty.NumField() {
		name, _, _ := strings.Cut(ty.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			want = append(want, name)
		}
	}
	sort.Strings(want)
	for _, typeName := range []string{"TenantSettings", "UpdateTenantSettingsInput"} {
		tt := s.Types[typeName]
		if tt == nil {
			t.Fatalf("no type %s", typeName)
		}
		have := map[string]bool{}
		for _, f := range tt.Fields {
			have[f.Name] = true
		}
		for _, f := range tt.InputFields {
			have[f.Name] = true
		}
		for _, name := range want {
			if !have[name] {
				t.Errorf("%s has no field %s (a field of domain.TenantSettings)", typeName, name)
			}
		}
	}
}
