package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestProfilePricesTheLedger: an answer on a model profile under a HARD
// token quota reserves and settles in the profile's name, and its cost is
// the profile's prices (micro-units per 1M tokens, rounded up) applied to
// the tokens the model used, as usageCosts reports it by model.
func TestProfilePricesTheLedger(t *testing.T) {
	_, alphaModel := fakeEndpoint(t)
	eachBackend(t, servertest.Options{Endpoints: map[string]llm.Model{"alpha": alphaModel}}, func(t *testing.T, h *servertest.Harness) {
		admin, alice := h.Client(t, "root", "admin"), h.Client(t, "alice")
		createProfile(t, admin, map[string]any{"name": "P", "endpoint": "alpha", "model": "model-p", "isDefault": true,
			"priceInputPerM": 2_000_000, "priceOutputPerM": 8_000_000})
		mustDo(t, admin, `mutation { updateTenantSettings(input: {tokenQuotaUserTokens: 100000}) { tokenQuotaUserTokens } }`, nil, nil)

		att := ask(t, alice, createConversation(t, alice), "上传文件最大是多少？")
		if s := waitDone(t, alice, att); s != "COMPLETED" {
			t.Fatalf("attempt %s", s)
		}
		id, err := uuid.Parse(att)
		if err != nil {
			t.Fatal(err)
		}
		ctx := viewer.SystemJobContext(context.Background(), viewer.JobReaper)
		var entries []struct {
			Kind    usageentry.Kind
			Profile *string
			Cost    int64
			In, Out int
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			rows, err := h.DB.Client.UsageEntry.Query().Where(usageentry.AttemptID(id)).Order(usageentry.ByCreatedAt()).All(ctx)
			if err != nil {
				t.Fatal(err)
			}
			entries = entries[:0]
			for _, r := range rows {
				entries = append(entries, struct {
					Kind    usageentry.Kind
					Profile *string
					Cost    int64
					In, Out int
				}{r.Kind, r.Profile, r.CostMicros, r.PromptTokens, r.CompletionTokens})
			}
			if len(entries) >= 2 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if len(entries) != 2 || entries[0].Kind != usageentry.KindRESERVE || entries[1].Kind != usageentry.KindSETTLE {
			t.Fatalf("ledger of the attempt: %+v, want RESERVE then SETTLE", entries)
		}
		for _, e := range entries {
			if e.Profile == nil || *e.Profile != "P" {
				t.Errorf("%s entry names profile %v, want P", e.Kind, e.Profile)
			}
		}
		s := entries[1]
		if want := int64(s.In)*2 + int64(s.Out)*8; s.Cost != want || s.In == 0 || s.Out == 0 {
			t.Errorf("settled %d prompt + %d completion tokens at cost %d, want %d", s.In, s.Out, s.Cost, want)
		}

		now := time.Now().UTC()
		var costs struct {
			UsageCosts []struct {
				Model      string
				CostMicros int64
			}
		}
		mustDo(t, admin, `query($f: Time!, $t: Time!) { usageCosts(from: $f, to: $t) { model costMicros } }`,
			map[string]any{"f": now.Add(-time.Hour).Format(time.RFC3339), "t": now.Add(time.Hour).Format(time.RFC3339)}, &costs)
		if len(costs.UsageCosts) != 1 || costs.UsageCosts[0].Model != "model-p" || costs.UsageCosts[0].CostMicros != s.Cost {
			t.Errorf("usageCosts: %+v, want one model-p row costing %d", costs.UsageCosts, s.Cost)
		}
	})
}
