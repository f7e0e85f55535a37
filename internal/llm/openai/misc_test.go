package openai_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/llm/openai"
)

func TestSummarize(t *testing.T) {
	srv, m, _ := setup(t, nil)
	srv.SetReply(strings.Repeat("用户询问文件上传限制。", 20))
	got, err := m.Summarize(context.Background(), llm.SummarizeRequest{
		Previous: "用户问：退款多久到账；结果：已回答",
		Items: []llm.SummaryItem{
			{Question: "我的订单号是 12345。上传文件最大是多少？", Outcome: "answered"},
			{Question: "保修多久", Outcome: "refused: no evidence"},
		},
		Parts:    []string{"用户陈述：订单 A-7"},
		Keep:     []string{"12345"},
		MaxChars: 50,
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(got)); n != 50 {
		t.Errorf("summary has %d runes, want the 50-rune cap", n)
	}
	var body llmfake.ChatRequest
	_ = json.Unmarshal(srv.LastRequest().Body, &body)
	user := body.LastUser()
	for _, want := range []string{"退款多久到账", "USER STATED: 我的订单号是 12345。", "USER ASKED: 上传文件最大是多少？",
		"PART 1:\n用户陈述：订单 A-7", "answered", "refused: no evidence", "<UNTRUSTED_CONVERSATION_CONTEXT>", "KEEP: 12345"} {
		if !strings.Contains(user, want) {
			t.Errorf("summary prompt lacks %q: %s", want, user)
		}
	}
	for _, want := range []string{llm.LabelUserStatedZH, llm.LabelAssistantOutcomeZH, llm.LabelUserStatedEN, "KEEP"} {
		if !strings.Contains(body.Messages[0].Content, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if !strings.Contains(body.Messages[0].Content, "50") {
		t.Errorf("system prompt does not state the cap")
	}
}

func TestSummarizeMakesOneAttempt(t *testing.T) {
	srv, m, _ := setup(t, nil)
	srv.FailNext(1, llmfake.Failure{Status: 503})
	_, err := m.Summarize(context.Background(), llm.SummarizeRequest{Items: []llm.SummaryItem{{Question: "q", Outcome: "answered"}}})
	if llm.KindOf(err) != llm.KindUnavailable || srv.RequestCount() != 1 {
		t.Fatalf("err = %v after %d requests", err, srv.RequestCount())
	}
	srv.SetReply("   ")
	if _, err := m.Summarize(context.Background(), llm.SummarizeRequest{}); llm.KindOf(err) != llm.KindUpstream {
		t.Errorf("empty summary err = %v", err)
	}
}

func TestTitle(t *testing.T) {
	tests := []struct{ reply, want string }{
		{"“上传文件大小限制”\n其他内容", "上传文件大小限制"},
		{"Refund timing?", "Refund timing"},
		{"", "上传文件最大是多少"},
		{strings.Repeat("标", 50), strings.Repeat("标", 29) + "…"},
	}
	for _, tc := range tests {
		srv, m, _ := setup(t, nil)
		srv.SetReply(tc.reply)
		got, err := m.Title(context.Background(), "上传文件最大是多少？")
		if err != nil || got != tc.want {
			t.Errorf("reply %q: Title = %q, %v; want %q", tc.reply, got, err, tc.want)
		}
	}
}

func norm(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / math.Sqrt(s))
	}
	return out
}

func TestEmbedBatchesPadsAndNormalises(t *testing.T) {
	srv, m, _ := setup(t, nil)
	srv.SetEmbeddingDims(8)
	srv.SetReverseEmbeddings(true)
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = strings.Repeat("x", i)
	}
	vecs, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.RequestCount(); n != 3 {
		t.Errorf("requests = %d, want 3 batches of ≤64", n)
	}
	for i, v := range vecs {
		if len(v) != domain.EmbeddingDimensions {
			t.Fatalf("vector %d has %d dims", i, len(v))
		}
		want := norm(llmfake.Vector(strings.Repeat("x", i), 8))
		if i == 0 {
			want = norm(llmfake.Vector(" ", 8)) // empty input is sent as a space
		}
		for j := range v {
			w := float32(0)
			if j < 8 {
				w = want[j]
			}
			if math.Abs(float64(v[j]-w)) > 1e-6 {
				t.Fatalf("vector %d[%d] = %f, want %f (order, padding or normalisation wrong)", i, j, v[j], w)
			}
		}
	}
	var body map[string]any
	_ = json.Unmarshal(srv.LastRequest().Body, &body)
	if _, sent := body["dimensions"]; sent || body["model"] != "fake-embed" {
		t.Errorf("request = %v", body)
	}
	if m.EmbeddingModel() != "fake-embed" {
		t.Errorf("EmbeddingModel = %q", m.EmbeddingModel())
	}
}

func TestEmbedRequestsDimensions(t *testing.T) {
	srv, m, _ := setup(t, func(c *openai.Config) { c.RequestDimensions = true })
	srv.SetEmbeddingDims(3072)
	vecs, err := m.Embed(context.Background(), []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Dimensions int `json:"dimensions"`
	}
	_ = json.Unmarshal(srv.LastRequest().Body, &body)
	if body.Dimensions != domain.EmbeddingDimensions || len(vecs[0]) != domain.EmbeddingDimensions {
		t.Errorf("dimensions sent %d, got %d", body.Dimensions, len(vecs[0]))
	}
}

func TestEmbedErrors(t *testing.T) {
	t.Run("longer vectors", func(t *testing.T) {
		srv, m, _ := setup(t, nil)
		srv.SetEmbeddingDims(1536)
		if _, err := m.Embed(context.Background(), []string{"a"}); llm.KindOf(err) != llm.KindUpstream {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("rate limit is retried", func(t *testing.T) {
		srv, m, _ := setup(t, nil)
		srv.FailNext(1, llmfake.Failure{Status: http.StatusTooManyRequests, RetryAfter: "1"})
		if _, err := m.Embed(context.Background(), []string{"a"}); err != nil || srv.RequestCount() != 2 {
			t.Errorf("err = %v after %d requests", err, srv.RequestCount())
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		_, m, _ := setup(t, nil)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := m.Embed(ctx, []string{"a"}); llm.KindOf(err) != llm.KindCanceled {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("no texts", func(t *testing.T) {
		srv, m, _ := setup(t, nil)
		if v, err := m.Embed(context.Background(), nil); err != nil || len(v) != 0 || srv.RequestCount() != 0 {
			t.Errorf("Embed(nil) = %v, %v", v, err)
		}
	})
}

func TestNewConfig(t *testing.T) {
	if _, err := openai.New(openai.Config{APIType: "bogus"}); err == nil {
		t.Error("unknown APIType accepted")
	}
	if _, err := openai.New(openai.Config{APIType: "azure"}); err == nil {
		t.Error("Azure without BaseURL accepted")
	}
	if _, err := openai.New(openai.Config{EmbeddingDimensions: 2048}); err == nil {
		t.Error("EmbeddingDimensions above the column width accepted")
	}
	m, err := openai.New(openai.Config{})
	if err != nil || m.Name() != "openai" || m.DefaultChatModel() != openai.DefaultChatModel || m.EmbeddingModel() != openai.DefaultEmbeddingModel {
		t.Errorf("defaults: %v %v", m, err)
	}
}

func TestAzureRequestShape(t *testing.T) {
	srv := llmfake.New()
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	// The fake serves only /v1 paths, so the Azure request 404s; the test
	// only checks what was sent.
	m, err := openai.New(openai.Config{APIType: "azure", BaseURL: strings.TrimSuffix(srv.URL, "/v1"), APIKey: "k", ChatModel: "gpt-4o", HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.ChatStream(context.Background(), userPrompt("q"))
	if llm.KindOf(err) != llm.KindBadRequest {
		t.Fatalf("err = %v", err)
	}
	last := srv.LastRequest()
	if last.Path != "/openai/deployments/gpt-4o/chat/completions" || last.Header.Get("api-key") != "k" {
		t.Errorf("Azure request %s api-key %q", last.Path, last.Header.Get("api-key"))
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"3", 3 * time.Second, true},
		{" 0 ", 0, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
	}
	for _, tc := range tests {
		got, ok := openai.ParseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseRetryAfter(%q) = %v %v, want %v %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
