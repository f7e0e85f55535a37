package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/llm/llmfake"
)

// TestModelEndpointsFromTheEnvironment: one `ragchat serve` with two
// OpenAI-compatible endpoints declared in RAGCHAT_MODEL_ENDPOINTS (two
// fake model servers, each with its own key variable) and a profile on
// each, serving two model names. An ask on each profile reaches its own
// endpoint, with its model name and key, and never the other one; the
// answer and the attempt's model are that model's.
func TestModelEndpointsFromTheEnvironment(t *testing.T) {
	fakes := map[string]*llmfake.Server{"alpha": llmfake.New(), "beta": llmfake.New()}
	endpoints := map[string]map[string]string{}
	for name, f := range fakes {
		t.Cleanup(f.Close)
		f.SetReplyFunc(func(r llmfake.ChatRequest) string { return "答案来自 " + r.Model + " [C1]" })
		endpoints[name] = map[string]string{"baseUrl": f.URL, "apiKeyEnv": strings.ToUpper(name) + "_KEY"}
	}
	raw, err := json.Marshal(endpoints)
	if err != nil {
		t.Fatal(err)
	}
	p := startServer(t, "RAGCHAT_MODEL_ENDPOINTS="+string(raw), "ALPHA_KEY=key-of-alpha", "BETA_KEY=key-of-beta")
	admin, alice := p.client(t, "acme", "root", "admin"), p.client(t, "acme", "alice")

	var eps struct{ ModelEndpoints []string }
	mustDo(t, admin, `{ modelEndpoints }`, nil, &eps)
	if got := strings.Join(eps.ModelEndpoints, ","); got != "alpha,beta,default,offline" {
		t.Fatalf("modelEndpoints = %s", got)
	}
	profiles := map[string]string{}
	for name, model := range map[string]string{"alpha": "model-a", "beta": "model-b"} {
		var out struct{ CreateModelProfile struct{ ID string } }
		mustDo(t, admin, `mutation($in: ModelProfileInput!) { createModelProfile(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"name": "on " + name, "endpoint": name, "model": model}}, &out)
		profiles[name] = out.CreateModelProfile.ID
	}

	for _, c := range []struct{ endpoint, model, key string }{
		{"alpha", "model-a", "key-of-alpha"},
		{"beta", "model-b", "key-of-beta"},
	} {
		before := len(chatsOf(t, fakes[c.endpoint], c.model, c.key))
		conv := createConversation(t, alice)
		var out struct {
			Ask struct{ Attempt struct{ ID string } }
		}
		mustDo(t, alice, `mutation($c: ID!, $p: ID) { ask(input: {conversationId: $c, clientMessageId: "m1", question: "上传文件最大是多少？", modelProfileId: $p}) { attempt { id } } }`,
			map[string]any{"c": conv, "p": profiles[c.endpoint]}, &out)
		id := out.Ask.Attempt.ID
		if s := waitDone(t, alice, id); s != "COMPLETED" {
			t.Fatalf("%s: attempt %s", c.endpoint, s)
		}
		var got struct {
			Attempt struct {
				Answer string
				Model  *string
			}
		}
		mustDo(t, alice, `query($a: ID!) { attempt(id: $a) { answer model } }`, map[string]any{"a": id}, &got)
		if !strings.Contains(got.Attempt.Answer, "答案来自 "+c.model) || got.Attempt.Model == nil || *got.Attempt.Model != c.model {
			t.Fatalf("%s: attempt answered %q with model %v, want %s's answer", c.endpoint, got.Attempt.Answer, got.Attempt.Model, c.model)
		}
		if len(chatsOf(t, fakes[c.endpoint], c.model, c.key)) == before {
			t.Fatalf("%s received no chat completion for the ask", c.endpoint)
		}
	}
	// Every call either endpoint received (answers, and the titles that
	// follow them asynchronously) names its own model with its own key.
	chatsOf(t, fakes["alpha"], "model-a", "key-of-alpha")
	chatsOf(t, fakes["beta"], "model-b", "key-of-beta")
}

// chatsOf returns the chat completions f received, failing unless each
// names model and carries key.
func chatsOf(t *testing.T, f *llmfake.Server, model, key string) []llmfake.ChatRequest {
	t.Helper()
	var out []llmfake.ChatRequest
	for _, r := range f.Requests() {
		if !strings.HasSuffix(r.Path, "/chat/completions") {
			continue
		}
		var cr llmfake.ChatRequest
		if err := json.Unmarshal(r.Body, &cr); err != nil {
			t.Fatal(err)
		}
		if cr.Model != model || r.Header.Get("Authorization") != "Bearer "+key {
			t.Fatalf("an endpoint received model %q with Authorization %q, want %s with its own key", cr.Model, r.Header.Get("Authorization"), model)
		}
		out = append(out, cr)
	}
	return out
}
