package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/llm/openai"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// fakeEndpoint starts a fake OpenAI-compatible server and returns it with
// its client, to serve as one model endpoint.
func fakeEndpoint(t *testing.T) (*llmfake.Server, llm.Model) {
	t.Helper()
	fake := llmfake.New()
	t.Cleanup(fake.Close)
	fake.SetReplyFunc(func(r llmfake.ChatRequest) string { return "答案来自 " + r.Model + " [C1]" })
	m, err := openai.New(openai.Config{BaseURL: fake.URL, APIKey: "test", ChatModel: "unused",
		FirstTokenTimeout: 30 * time.Second, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return fake, m
}

// chatRequests are the chat completions a fake endpoint received.
func chatRequests(t *testing.T, fake *llmfake.Server) []llmfake.ChatRequest {
	t.Helper()
	var out []llmfake.ChatRequest
	for _, r := range fake.Requests() {
		if !strings.HasSuffix(r.Path, "/chat/completions") {
			continue
		}
		var cr llmfake.ChatRequest
		if err := json.Unmarshal(r.Body, &cr); err != nil {
			t.Fatal(err)
		}
		out = append(out, cr)
	}
	return out
}

const createProfileMutation = `mutation($in: ModelProfileInput!) { createModelProfile(input: $in) { id name } }`

func createProfile(t *testing.T, c *gqlclient.Client, in map[string]any) string {
	t.Helper()
	var out struct{ CreateModelProfile struct{ ID string } }
	mustDo(t, c, createProfileMutation, map[string]any{"in": in}, &out)
	return out.CreateModelProfile.ID
}

const askWithModel = `mutation($c: ID!, $k: String!, $p: ID, $m: ModelParametersInput) {
	ask(input: {conversationId: $c, clientMessageId: $k, question: "上传文件最大是多少？", modelProfileId: $p, modelParameters: $m}) { attempt { id } } }`

const retryWithModel = `mutation($a: ID!, $k: String!, $p: ID, $m: ModelParametersInput) {
	retryAttempt(input: {attemptId: $a, clientRequestId: $k, modelProfileId: $p, modelParameters: $m}) { attempt { id } } }`

const editWithModel = `mutation($msg: ID!, $k: String!, $p: ID, $m: ModelParametersInput) {
	editMessage(messageId: $msg, question: "单个文件的上传上限是多少？", clientMessageId: $k, modelProfileId: $p, modelParameters: $m) { attempt { id } } }`

const reaskWithModel = `mutation($a: ID!, $k: String, $p: ID, $m: ModelParametersInput) {
	reaskAttempt(attemptId: $a, clientRequestId: $k, modelProfileId: $p, modelParameters: $m) { attempt { id } } }`

// questionOf returns the id of the USER message attempt answers.
func questionOf(t *testing.T, c *gqlclient.Client, attemptID string) string {
	t.Helper()
	var out struct {
		Attempt struct{ UserMessage struct{ ID string } }
	}
	mustDo(t, c, `query($a: ID!) { attempt(id: $a) { userMessage { id } } }`, map[string]any{"a": attemptID}, &out)
	return out.Attempt.UserMessage.ID
}

var modelKeys int

func key() string { modelKeys++; return fmt.Sprintf("mk-%d-%d", time.Now().UnixNano(), modelKeys) }

// TestModelProfilesChooseTheModel: profiles on two endpoints (two fake
// OpenAI-compatible servers). A conversation without a choice answers
// with the tenant default (B, on beta); a conversation created on A
// answers on alpha with A's model and the conversation's temperature; an
// ask's own parameters win over the conversation's. Each attempt shows
// the profile and parameters it used, and availableModels lists only the
// enabled profiles open to the viewer's groups.
func TestModelProfilesChooseTheModel(t *testing.T) {
	alpha, alphaModel := fakeEndpoint(t)
	beta, betaModel := fakeEndpoint(t)
	eachBackend(t, servertest.Options{Endpoints: map[string]llm.Model{"alpha": alphaModel, "beta": betaModel}}, func(t *testing.T, h *servertest.Harness) {
		// The fakes serve both backends' harnesses: count from here.
		alphaBase, betaBase := len(chatRequests(t, alpha)), len(chatRequests(t, beta))
		admin, alice := h.Client(t, "root", "admin"), h.Client(t, "alice")
		a := createProfile(t, admin, map[string]any{"name": "A", "endpoint": "alpha", "model": "model-a", "temperatureDefault": 0.3, "maxAnswerTokensMax": 300})
		createProfile(t, admin, map[string]any{"name": "B", "endpoint": "beta", "model": "model-b", "isDefault": true, "topPDefault": 0.9})
		createProfile(t, admin, map[string]any{"name": "C", "endpoint": "alpha", "model": "model-c", "allowedGroups": []string{"eng"}})
		createProfile(t, admin, map[string]any{"name": "D", "endpoint": "alpha", "model": "model-d", "enabled": false})

		var av struct{ AvailableModels []struct{ Name string } }
		mustDo(t, alice, `{ availableModels { name } }`, nil, &av)
		if got := fmt.Sprint(av.AvailableModels); got != "[{A} {B}]" {
			t.Fatalf("availableModels for alice: %s", got)
		}

		// No choice: the tenant default B on beta.
		conv := createConversation(t, alice)
		att := ask(t, alice, conv, "上传文件最大是多少？")
		if s := waitDone(t, alice, att); s != "COMPLETED" {
			t.Fatalf("default-profile attempt %s", s)
		}
		reqs := chatRequests(t, beta)[betaBase:]
		if len(reqs) != 1 || reqs[0].Model != "model-b" || reqs[0].TopP != 0.9 {
			t.Fatalf("beta received %+v, want one model-b request with top_p 0.9", reqs)
		}

		// A conversation on A, with its own temperature.
		var cc struct{ CreateConversation struct{ ID string } }
		mustDo(t, alice, `mutation($p: ID) { createConversation(input: {modelProfileId: $p, modelParameters: {temperature: 0.5}}) { id } }`,
			map[string]any{"p": a}, &cc)
		var out struct {
			Ask struct{ Attempt struct{ ID string } }
		}
		mustDo(t, alice, askWithModel, map[string]any{"c": cc.CreateConversation.ID, "k": key(), "m": map[string]any{"maxAnswerTokens": 200}}, &out)
		if s := waitDone(t, alice, out.Ask.Attempt.ID); s != "COMPLETED" {
			t.Fatalf("profile A attempt %s", s)
		}
		reqs = chatRequests(t, alpha)[alphaBase:]
		if len(reqs) != 1 || reqs[0].Model != "model-a" || reqs[0].Temperature != 0.5 || reqs[0].MaxTokens > 200 || reqs[0].MaxTokens == 0 {
			t.Fatalf("alpha received %+v, want one model-a request at temperature 0.5 and at most 200 tokens", reqs)
		}
		var got struct {
			Attempt struct {
				Model        *string
				ModelProfile *struct{ Name string }
				Parameters   *struct {
					Temperature, TopP *float64
					MaxAnswerTokens   *int
				}
			}
		}
		mustDo(t, alice, `query($a: ID!) { attempt(id: $a) { model modelProfile { name } parameters { temperature topP maxAnswerTokens } } }`,
			map[string]any{"a": out.Ask.Attempt.ID}, &got)
		p := got.Attempt.Parameters
		if got.Attempt.ModelProfile == nil || got.Attempt.ModelProfile.Name != "A" || p == nil ||
			*p.Temperature != 0.5 || *p.TopP != 1 || *p.MaxAnswerTokens != 200 || got.Attempt.Model == nil || *got.Attempt.Model != "model-a" {
			t.Fatalf("attempt shows %+v %+v", got.Attempt, p)
		}
		if n := len(chatRequests(t, beta)) - betaBase; n != 1 {
			t.Fatalf("beta got %d requests, want still 1", n)
		}
	})
}

// TestModelChoiceRefusals: on ask, retry, editMessage and reaskAttempt
// (every mutation that starts an answer), a profile the viewer may
// not use (closed to their groups, disabled, unknown, another tenant's) is
// BAD_USER_INPUT naming modelProfileId, byte-identical for each; a
// parameter out of bounds is BAD_USER_INPUT naming it. Nothing is
// written.
func TestModelChoiceRefusals(t *testing.T) {
	_, alphaModel := fakeEndpoint(t)
	eachBackend(t, servertest.Options{Endpoints: map[string]llm.Model{"alpha": alphaModel}}, func(t *testing.T, h *servertest.Harness) {
		admin, alice := h.Client(t, "root", "admin"), h.Client(t, "alice")
		open := createProfile(t, admin, map[string]any{"name": "open", "endpoint": "offline", "model": "offline", "temperatureMax": 1.0, "maxAnswerTokensMax": 256, "isDefault": true})
		eng := createProfile(t, admin, map[string]any{"name": "eng", "endpoint": "alpha", "model": "m", "allowedGroups": []string{"eng"}})
		off := createProfile(t, admin, map[string]any{"name": "off", "endpoint": "alpha", "model": "m", "enabled": false})
		sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
		if err := h.DB.Client.Tenant.Create().SetID("globex").SetName("Globex").SetSettings(domain.DefaultTenantSettings()).Exec(sys); err != nil {
			t.Fatal(err)
		}
		foreign := createProfile(t, gqlclient.New(h.URL, h.Token(t, "globex", "root", []string{"admin"})), map[string]any{"name": "theirs", "endpoint": "offline", "model": "m"})

		conv := createConversation(t, alice)
		att := ask(t, alice, conv, "上传文件最大是多少？")
		waitDone(t, alice, att)
		question := questionOf(t, alice, att)
		messages := func() int {
			id := uuid.MustParse(conv)
			n, err := h.DB.Client.Message.Query().Where(message.ConversationID(id)).Count(sysCtx())
			if err != nil {
				t.Fatal(err)
			}
			m, err := h.DB.Client.Attempt.Query().Where(attempt.ConversationID(id)).Count(sysCtx())
			if err != nil {
				t.Fatal(err)
			}
			return n*1000 + m
		}
		before := messages()

		for _, op := range []struct {
			name, query string
			vars        func() map[string]any
		}{
			{"ask", askWithModel, func() map[string]any { return map[string]any{"c": conv, "k": key()} }},
			{"retry", retryWithModel, func() map[string]any { return map[string]any{"a": att, "k": key()} }},
			{"edit", editWithModel, func() map[string]any { return map[string]any{"msg": question, "k": key()} }},
			{"reask", reaskWithModel, func() map[string]any { return map[string]any{"a": att, "k": key()} }},
		} {
			t.Run(op.name, func(t *testing.T) {
				var first json.RawMessage
				for _, id := range []string{eng, off, foreign, "0190b6a0-0000-7000-8000-000000000000"} {
					v := op.vars()
					v["p"] = id
					errs := rawErrors(t, alice, op.query, v)
					if len(errs) != 1 || !strings.Contains(string(errs[0]), `"BAD_USER_INPUT"`) || !strings.Contains(string(errs[0]), `"field":"modelProfileId"`) {
						t.Fatalf("profile %s: %s", id, errs)
					}
					if first == nil {
						first = errs[0]
					} else if string(first) != string(errs[0]) {
						t.Fatalf("profile %s answered\n%s\nbut the first unusable one\n%s", id, errs[0], first)
					}
				}
				for _, c := range []struct {
					params map[string]any
					field  string
				}{
					{map[string]any{"temperature": 1.5}, "modelParameters.temperature"},
					{map[string]any{"topP": 1.1}, "modelParameters.topP"},
					{map[string]any{"maxAnswerTokens": 257}, "modelParameters.maxAnswerTokens"},
					{map[string]any{"maxAnswerTokens": 0}, "modelParameters.maxAnswerTokens"},
				} {
					v := op.vars()
					v["p"], v["m"] = open, c.params
					code, e := errorCode(t, alice, op.query, v)
					if code != "BAD_USER_INPUT" || e.Extensions["field"] != c.field {
						t.Fatalf("%v: %s %v, want BAD_USER_INPUT naming %s", c.params, code, e.Extensions, c.field)
					}
				}
			})
		}
		if n := messages(); n != before {
			t.Fatalf("the refusals wrote messages: %d, before %d", n, before)
		}
		code, e := errorCode(t, alice, `mutation($p: ID) { createConversation(input: {modelProfileId: $p}) { id } }`, map[string]any{"p": eng})
		if code != "BAD_USER_INPUT" || e.Extensions["field"] != "modelProfileId" {
			t.Fatalf("createConversation on a closed profile: %s %v", code, e.Extensions)
		}
	})
}

// attemptModel is what an attempt shows of the model it answered with.
type attemptModel struct {
	Model        *string
	ModelProfile *struct{ Name string }
	Parameters   *struct {
		Temperature, TopP *float64
		MaxAnswerTokens   *int
	}
}

// modelOfAttempt reads attemptID's model, profile and parameters.
func modelOfAttempt(t *testing.T, c *gqlclient.Client, attemptID string) attemptModel {
	t.Helper()
	var out struct{ Attempt attemptModel }
	mustDo(t, c, `query($a: ID!) { attempt(id: $a) { model modelProfile { name } parameters { temperature topP maxAnswerTokens } } }`,
		map[string]any{"a": attemptID}, &out)
	return out.Attempt
}

// TestModelChoiceOnEditAndReask: editMessage and reaskAttempt choose the
// new attempt's model like ask, by the same precedence: their own profile
// and parameters over the conversation's (on A, temperature 0.5), over
// the profile's defaults. The model call goes to the chosen profile's
// endpoint with its model and the resolved parameters, and the attempt
// records them; an edit without a choice answers with the conversation's.
func TestModelChoiceOnEditAndReask(t *testing.T) {
	alpha, alphaModel := fakeEndpoint(t)
	beta, betaModel := fakeEndpoint(t)
	eachBackend(t, servertest.Options{Endpoints: map[string]llm.Model{"alpha": alphaModel, "beta": betaModel}}, func(t *testing.T, h *servertest.Harness) {
		alphaBase, betaBase := len(chatRequests(t, alpha)), len(chatRequests(t, beta))
		admin, alice := h.Client(t, "root", "admin"), h.Client(t, "alice")
		a := createProfile(t, admin, map[string]any{"name": "A", "endpoint": "alpha", "model": "model-a", "isDefault": true})
		b := createProfile(t, admin, map[string]any{"name": "B", "endpoint": "beta", "model": "model-b", "temperatureDefault": 0.9, "topPDefault": 0.8, "maxAnswerTokensMax": 300})

		var cc struct{ CreateConversation struct{ ID string } }
		mustDo(t, alice, `mutation($p: ID) { createConversation(input: {modelProfileId: $p, modelParameters: {temperature: 0.5}}) { id } }`,
			map[string]any{"p": a}, &cc)
		conv := cc.CreateConversation.ID
		first := ask(t, alice, conv, "上传文件最大是多少？")
		if s := waitDone(t, alice, first); s != "COMPLETED" {
			t.Fatalf("first attempt %s", s)
		}
		question := questionOf(t, alice, first)

		run := func(name, query string, vars map[string]any, field string) string {
			t.Helper()
			var out map[string]struct{ Attempt struct{ ID string } }
			mustDo(t, alice, query, vars, &out)
			id := out[field].Attempt.ID
			if s := waitDone(t, alice, id); s != "COMPLETED" {
				t.Fatalf("%s attempt %s", name, s)
			}
			return id
		}
		edited := run("edit", editWithModel, map[string]any{"msg": question, "k": key(), "p": b, "m": map[string]any{"temperature": 0.7}}, "editMessage")
		reasked := run("reask", reaskWithModel, map[string]any{"a": first, "k": key(), "p": b, "m": map[string]any{"maxAnswerTokens": 100}}, "reaskAttempt")
		plain := run("plain edit", editWithModel, map[string]any{"msg": question, "k": key()}, "editMessage")

		reqs := chatRequests(t, beta)[betaBase:]
		if len(reqs) != 2 || reqs[0].Model != "model-b" || reqs[0].Temperature != 0.7 || reqs[0].TopP != 0.8 ||
			reqs[1].Model != "model-b" || reqs[1].Temperature != 0.5 || reqs[1].MaxTokens == 0 || reqs[1].MaxTokens > 100 {
			t.Fatalf("beta received %+v, want the edit (model-b, temperature 0.7, top_p 0.8) and the reask (temperature 0.5, at most 100 tokens)", reqs)
		}
		if reqs := chatRequests(t, alpha)[alphaBase:]; len(reqs) != 2 || reqs[1].Model != "model-a" || reqs[1].Temperature != 0.5 {
			t.Fatalf("alpha received %+v, want the first ask and the plain edit on model-a at temperature 0.5", reqs)
		}

		for _, c := range []struct {
			name, id, profile, model string
			temperature, topP        float64
			maxTokens                int // 0: none recorded
		}{
			{"edit", edited, "B", "model-b", 0.7, 0.8, 0},
			{"reask", reasked, "B", "model-b", 0.5, 0.8, 100},
			{"plain edit", plain, "A", "model-a", 0.5, 1, 0},
		} {
			got := modelOfAttempt(t, alice, c.id)
			p := got.Parameters
			if got.ModelProfile == nil || got.ModelProfile.Name != c.profile || got.Model == nil || *got.Model != c.model ||
				p == nil || p.Temperature == nil || *p.Temperature != c.temperature || p.TopP == nil || *p.TopP != c.topP ||
				(c.maxTokens == 0) != (p.MaxAnswerTokens == nil) || (p.MaxAnswerTokens != nil && *p.MaxAnswerTokens != c.maxTokens) {
				t.Fatalf("%s attempt shows %+v %+v, want profile %s, model %s, temperature %g, topP %g, maxAnswerTokens %d",
					c.name, got, p, c.profile, c.model, c.temperature, c.topP, c.maxTokens)
			}
		}
	})
}
