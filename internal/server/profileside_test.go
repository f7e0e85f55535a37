package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestTitleUsesTheProfile: with a default model profile, the title the
// engine generates after the first answer is asked of the profile's
// endpoint and model, like the answer (no call reaches another model),
// and its TITLE entry names the profile and is priced at its prices.
func TestTitleUsesTheProfile(t *testing.T) {
	fake, alphaModel := fakeEndpoint(t)
	eachBackend(t, servertest.Options{Endpoints: map[string]llm.Model{"alpha": alphaModel}, GenerateTitles: true}, func(t *testing.T, h *servertest.Harness) {
		admin, alice := h.Client(t, "root", "admin"), h.Client(t, "alice")
		createProfile(t, admin, map[string]any{"name": "P", "endpoint": "alpha", "model": "model-p", "isDefault": true,
			"priceInputPerM": 2_000_000, "priceOutputPerM": 8_000_000})
		before := len(chatRequests(t, fake))
		att := ask(t, alice, createConversation(t, alice), "上传文件最大是多少？")
		if s := waitDone(t, alice, att); s != "COMPLETED" {
			t.Fatalf("attempt %s", s)
		}
		ctx := viewer.SystemJobContext(context.Background(), viewer.JobReaper)
		deadline := time.Now().Add(30 * time.Second)
		for {
			n, err := h.DB.Client.UsageEntry.Query().Where(usageentry.PurposeEQ(usageentry.PurposeTITLE)).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no TITLE entry in the ledger")
			}
			time.Sleep(20 * time.Millisecond)
		}
		title, err := h.DB.Client.UsageEntry.Query().Where(usageentry.PurposeEQ(usageentry.PurposeTITLE)).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if title.Profile == nil || *title.Profile != "P" || title.Model != "model-p" || title.Kind != usageentry.KindSETTLE {
			t.Errorf("TITLE entry: kind %s profile %v model %q, want SETTLE on P, model-p", title.Kind, title.Profile, title.Model)
		}
		if want := int64(title.PromptTokens)*2 + int64(title.CompletionTokens)*8; title.CostMicros != want || title.PromptTokens == 0 {
			t.Errorf("TITLE: %d + %d tokens at cost %d, want %d", title.PromptTokens, title.CompletionTokens, title.CostMicros, want)
		}
		reqs := chatRequests(t, fake)[before:]
		if len(reqs) < 2 {
			t.Fatalf("the endpoint got %d chat calls, want the answer and the title", len(reqs))
		}
		for _, r := range reqs {
			if r.Model != "model-p" {
				t.Errorf("a call asked model %q, want model-p", r.Model)
			}
		}
	})
}
