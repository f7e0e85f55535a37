package llm_test

import (
	"math"
	"testing"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
)

func TestFitDimensions(t *testing.T) {
	a, err := llm.FitDimensions([]float32{3, 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != domain.EmbeddingDimensions {
		t.Fatalf("len = %d", len(a))
	}
	if math.Abs(float64(a[0])-0.6) > 1e-6 || math.Abs(float64(a[1])-0.8) > 1e-6 || a[2] != 0 {
		t.Errorf("got %v…", a[:3])
	}
	// Padding leaves cosine similarity unchanged.
	x, y := []float32{1, 2, 3}, []float32{3, -1, 2}
	px, _ := llm.FitDimensions(x)
	py, _ := llm.FitDimensions(y)
	if d := math.Abs(llm.Cosine(x, y) - llm.Cosine(px, py)); d > 1e-6 {
		t.Errorf("cosine changed by %g", d)
	}

	bad := map[string][]float32{
		"too long": make([]float32, domain.EmbeddingDimensions+1),
		"zero":     make([]float32, 8),
		"nan":      {float32(math.NaN()), 1},
	}
	for name, v := range bad {
		if name == "too long" {
			v[0] = 1
		}
		if _, err := llm.FitDimensions(v); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestShortTitle(t *testing.T) {
	tests := []struct{ in, want string }{
		{"上传文件最大是多少？", "上传文件最大是多少"},
		{"  How long do refunds take?  ", "How long do refunds take"},
		{"“什么是RAG？”", "什么是RAG"},
		{"", llm.DefaultTitle},
		{"？？", llm.DefaultTitle},
		{"一二三四五六七八九十一二三四五六七八九十一二三四五六七八九十一二三", "一二三四五六七八九十一二三四五六七八九十一二三四五六七八九…"},
	}
	for _, tc := range tests {
		got := llm.ShortTitle(tc.in)
		if got != tc.want {
			t.Errorf("ShortTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if n := len([]rune(got)); n > llm.MaxTitleRunes {
			t.Errorf("ShortTitle(%q) has %d runes", tc.in, n)
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	if llm.EstimateTokens("") != 0 {
		t.Error("empty text has tokens")
	}
	if n := llm.EstimateTokens("hello world"); n != 2 {
		t.Errorf("hello world = %d tokens, want 2 (cl100k_base)", n)
	}
	u := llm.EstimateUsage([]llm.Message{{Role: llm.RoleUser, Content: "上传文件最大是多少？"}}, "20MB")
	if !u.Estimated || u.PromptTokens <= 0 || u.CompletionTokens <= 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("usage = %+v", u)
	}
}
