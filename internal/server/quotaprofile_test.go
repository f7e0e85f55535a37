package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/llm/openai"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestHardQuotaBindsTheProfileAnswerCap: a member's profile may allow
// far longer answers than the tenant's maxAnswerTokens, and an answer is
// then bounded by the profile's cap, so that is what an ask reserves.
// With a HARD per-user limit of 20,000 tokens and a profile whose answers
// may take 60,000, on each backend:
//   - an ask whose answer cap is 50,000 (the member's maxAnswerTokens, or
//     the profile's default) is QUOTA_EXCEEDED, and no model call is made;
//   - an ask at 13,000 is admitted (6,000 + 13,000 reserved) and its
//     answer is asked with max_tokens at most 13,000; the endpoint, which
//     writes as long as it is allowed, uses it all, and the settled usage
//     (answer and title) stays within the limit;
//   - the next such ask is QUOTA_EXCEEDED.
func TestHardQuotaBindsTheProfileAnswerCap(t *testing.T) {
	fake := llmfake.New()
	t.Cleanup(fake.Close)
	// An endpoint that writes as long as max_tokens lets it, or 60,000
	// tokens (the fake counts a streamed chunk, here a rune, as a token).
	fake.SetReplyFunc(func(r llmfake.ChatRequest) string {
		n := max(r.MaxTokens, r.MaxCompletionTokens)
		if n <= 0 {
			n = 60_000
		}
		return strings.Repeat("长", n)
	})
	fake.SetChunkRunes(1)
	alpha, err := openai.New(openai.Config{BaseURL: fake.URL, APIKey: "test", ChatModel: "unused",
		FirstTokenTimeout: 30 * time.Second, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	const limit = 20_000
	eachBackend(t, servertest.Options{Endpoints: map[string]llm.Model{"alpha": alpha}, GenerateTitles: true}, func(t *testing.T, h *servertest.Harness) {
		admin, alice := h.Client(t, "root", "admin"), h.Client(t, "alice")
		mustDo(t, admin, `mutation { updateTenantSettings(input: {tokenQuotaUserTokens: 20000}) { tokenQuotaKind } }`, nil, nil)
		long := createProfile(t, admin, map[string]any{"name": "long", "endpoint": "alpha", "model": "m-long", "contextWindow": 128_000, "maxAnswerTokensMax": 60_000, "isDefault": true})
		longer := createProfile(t, admin, map[string]any{"name": "longer", "endpoint": "alpha", "model": "m-longer", "contextWindow": 128_000, "maxAnswerTokensMax": 60_000, "maxAnswerTokensDefault": 50_000})
		conv := createConversation(t, alice)
		calls := len(chatRequests(t, fake))

		type usage struct{ Used, Reserved int }
		myUsage := func() usage {
			var out struct{ MyUsage usage }
			deadline := time.Now().Add(30 * time.Second)
			for {
				mustDo(t, alice, `{ myUsage { used reserved } }`, nil, &out)
				if out.MyUsage.Reserved == 0 || time.Now().After(deadline) {
					return out.MyUsage
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		for _, c := range []struct {
			name    string
			profile string
			params  map[string]any
		}{
			{"the member's maxAnswerTokens", long, map[string]any{"maxAnswerTokens": 50_000}},
			{"the profile's default", longer, nil},
		} {
			vars := map[string]any{"c": conv, "k": "refused-" + c.name, "p": c.profile}
			if c.params != nil {
				vars["m"] = c.params
			}
			code, e := errorCode(t, alice, askWithModel, vars)
			if code != "QUOTA_EXCEEDED" || e.Extensions["limit"] != "user" {
				t.Fatalf("%s: %s %v", c.name, code, e.Extensions)
			}
		}
		if n := len(chatRequests(t, fake)); n != calls {
			t.Fatalf("a refused ask reached the model: %d calls", n-calls)
		}
		if u := myUsage(); u != (usage{}) {
			t.Fatalf("after the refusals: %+v", u)
		}

		var res struct {
			Ask struct{ Attempt struct{ ID string } }
		}
		mustDo(t, alice, askWithModel, map[string]any{"c": conv, "k": "admitted", "p": long, "m": map[string]any{"maxAnswerTokens": 13_000}}, &res)
		if s := waitDone(t, alice, res.Ask.Attempt.ID); s != "COMPLETED" {
			t.Fatalf("the admitted ask: %s", s)
		}
		answered := false
		for _, r := range chatRequests(t, fake)[calls:] {
			if !r.Stream {
				continue
			}
			answered = true
			if n := max(r.MaxTokens, r.MaxCompletionTokens); n < 1 || n > 13_000 {
				t.Fatalf("the answer was asked with max_tokens %d", n)
			}
		}
		if !answered {
			t.Fatal("the answer reached no model")
		}
		u := myUsage()
		if u.Used <= 13_000 || u.Used > limit {
			t.Fatalf("settled usage %d: want the answer's 13,000 tokens and its prompt, within %d", u.Used, limit)
		}
		code, e := errorCode(t, alice, askWithModel, map[string]any{"c": conv, "k": "again", "p": long, "m": map[string]any{"maxAnswerTokens": 13_000}})
		if code != "QUOTA_EXCEEDED" {
			t.Fatalf("the next ask: %s %v", code, e.Extensions)
		}
		// The title, a side call after the answer, fits and is settled.
		ctx := viewer.SystemJobContext(context.Background(), viewer.JobReaper)
		deadline := time.Now().Add(30 * time.Second)
		for {
			n, err := h.DB.Client.UsageEntry.Query().Where(usageentry.PurposeEQ(usageentry.PurposeTITLE), usageentry.KindEQ(usageentry.KindSETTLE)).Count(ctx)
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
		if u := myUsage(); u.Used > limit || u.Reserved != 0 {
			t.Fatalf("with the title: %+v, limit %d", u, limit)
		}
	})
}

// TestHardQuotaHoldsWhenTheProviderIgnoresMaxTokens: an OpenAI-compatible
// endpoint that ignores max_tokens (it writes 60,000 tokens to every
// request, streamed or not) cannot take a member past a HARD limit: the
// answer is cut at the max_tokens its reservation allowed, the title (a
// side call) at its own bound, and the settled usage stays within the
// limit, with nothing left reserved. On each backend.
func TestHardQuotaHoldsWhenTheProviderIgnoresMaxTokens(t *testing.T) {
	fake := llmfake.New()
	t.Cleanup(fake.Close)
	fake.SetReply(strings.Repeat("长", 60_000))
	fake.SetChunkRunes(25)
	alpha, err := openai.New(openai.Config{BaseURL: fake.URL, APIKey: "test", ChatModel: "unused",
		FirstTokenTimeout: 30 * time.Second, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	const limit = 20_000
	eachBackend(t, servertest.Options{Endpoints: map[string]llm.Model{"alpha": alpha}, GenerateTitles: true}, func(t *testing.T, h *servertest.Harness) {
		admin, alice := h.Client(t, "root", "admin"), h.Client(t, "alice")
		mustDo(t, admin, `mutation { updateTenantSettings(input: {tokenQuotaUserTokens: 20000}) { tokenQuotaKind } }`, nil, nil)
		long := createProfile(t, admin, map[string]any{"name": "long", "endpoint": "alpha", "model": "m-long", "contextWindow": 128_000, "maxAnswerTokensMax": 60_000, "isDefault": true})
		conv := createConversation(t, alice)
		var res struct {
			Ask struct{ Attempt struct{ ID string } }
		}
		mustDo(t, alice, askWithModel, map[string]any{"c": conv, "k": "admitted", "p": long, "m": map[string]any{"maxAnswerTokens": 13_000}}, &res)
		if s := waitDone(t, alice, res.Ask.Attempt.ID); s != "COMPLETED" {
			t.Fatalf("the admitted ask: %s", s)
		}
		var att struct {
			Node struct {
				Answer           string
				CompletionTokens int
			}
		}
		mustDo(t, alice, `query($a: ID!) { node(id: $a) { ... on Attempt { answer completionTokens } } }`, map[string]any{"a": res.Ask.Attempt.ID}, &att)
		if n := llm.EstimateTokens(att.Node.Answer); n > 13_000 || n < 12_000 || att.Node.CompletionTokens > 13_000 {
			t.Fatalf("the answer kept %d tokens (%d charged), want it cut at 13,000", n, att.Node.CompletionTokens)
		}
		ctx := viewer.SystemJobContext(context.Background(), viewer.JobReaper)
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			n, err := h.DB.Client.UsageEntry.Query().Where(usageentry.PurposeEQ(usageentry.PurposeTITLE), usageentry.KindEQ(usageentry.KindSETTLE)).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no TITLE entry in the ledger")
			}
		}
		var out struct{ MyUsage struct{ Used, Reserved int } }
		mustDo(t, alice, `{ myUsage { used reserved } }`, nil, &out)
		if u := out.MyUsage; u.Used > limit || u.Used <= 13_000 || u.Reserved != 0 {
			t.Fatalf("usage %+v with a limit of %d", u, limit)
		}
	})
}
