package offline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
)

func rounds(users ...string) []llm.Round {
	var out []llm.Round
	for _, u := range users {
		out = append(out, llm.Round{User: u, Assistant: "（回答）"})
	}
	return out
}

func TestRewrite(t *testing.T) {
	tests := []struct {
		name     string
		history  []llm.Round
		question string
		requires bool
		want     string
	}{
		{"upload-limit follow-up (D5)", rounds("上传文件最大是多少？"), "那超过以后返回什么错误码？", true, "关于上传文件最大：超过以后返回什么错误码？"},
		{"refund follow-up (D5)", rounds("退款多久到账"), "那银行卡呢", true, "银行卡退款多久到账？"},
		{"chained follow-ups", rounds("退款多久到账", "那银行卡呢"), "那信用卡呢", true, "信用卡退款多久到账？"},
		{"conditional follow-up", rounds("退款多久到账", "那银行卡呢"), "如果节假日呢", true, "如果节假日，银行卡退款多久到账？"},
		{"pronoun 它", rounds("什么是RAG？"), "那它有什么缺点？", true, "RAG有什么缺点？"},
		{"demonstrative 这个", rounds("如何设置上传大小限制？"), "这个配置在哪里改？", true, "设置上传大小限制的配置在哪里改？"},
		{"刚才提到的", rounds("上传文件最大是多少？"), "刚才提到的配置在哪里修改？", true, "上传文件最大的配置在哪里修改？"},
		{"Latin name swap", rounds("PostgreSQL如何创建HNSW索引？"), "那MySQL呢？", true, "MySQL如何创建HNSW索引？"},
		{"ordinal", rounds("有哪些方案可以加速检索？"), "第二种方案呢？", true, "关于方案可以加速检索：第二种方案呢？"},
		{"topic switch", rounds("上传文件最大是多少？"), "PostgreSQL如何创建HNSW索引？", false, "PostgreSQL如何创建HNSW索引？"},
		{"topic switch definition", rounds("上传文件最大是多少？"), "什么是RAG？", false, "什么是RAG？"},
		{"no history", nil, "那银行卡呢", false, "那银行卡呢"},
		{"english what about", rounds("How long do refunds take?"), "What about bank cards?", true, "How long do refunds take for bank cards?"},
		{"english possessive", rounds("What is RAG?"), "What are its drawbacks?", true, "What are RAG's drawbacks?"},
		{"english demonstrative", rounds("How do I configure the upload limit?"), "Where do I change those settings?", true, "Where do I change the settings for configure upload limit?"},
		{"english short", rounds("How long do refunds take?"), "Why?", true, "Regarding refunds take: Why?"},
		{"english topic switch", rounds("How long do refunds take?"), "How do I create an HNSW index in PostgreSQL?", false, "How do I create an HNSW index in PostgreSQL?"},
	}
	m := offline.New(offline.Options{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.Rewrite(context.Background(), llm.RewriteRequest{Question: tc.question, History: tc.history})
			if err != nil {
				t.Fatal(err)
			}
			if got.RequiresHistory != tc.requires || got.StandaloneQuestion != tc.want {
				t.Errorf("Rewrite(%q) = %v %q, want %v %q", tc.question, got.RequiresHistory, got.StandaloneQuestion, tc.requires, tc.want)
			}
		})
	}
}

// TestRewriteKeepsTopicTerms checks the follow-up expectation of docs/ENGINE.md D17: a
// follow-up about the error code carries the upload context, and the
// rewritten question retrieves the upload paragraph.
func TestRewriteKeepsTopicTerms(t *testing.T) {
	m := offline.New(offline.Options{})
	res, err := m.Rewrite(context.Background(), llm.RewriteRequest{
		Question: "那错误码是什么", History: rounds("上传文件最大是多少？"),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, term := range []string{"上传", "文件", "错误码"} {
		if !strings.Contains(res.StandaloneQuestion, term) {
			t.Errorf("%q lacks %q", res.StandaloneQuestion, term)
		}
	}
	q := embedOne(t, m, res.StandaloneQuestion)
	if up, re := llm.Cosine(q, embedOne(t, m, corpus["upload"])), llm.Cosine(q, embedOne(t, m, corpus["refund"])); up <= re {
		t.Errorf("rewritten question closer to refunds (%.3f) than uploads (%.3f)", re, up)
	}
}

func TestRewriteIsDeterministic(t *testing.T) {
	m := offline.New(offline.Options{})
	req := llm.RewriteRequest{Question: "那银行卡呢", History: rounds("上传文件最大是多少？", "退款多久到账")}
	first, _ := m.Rewrite(context.Background(), req)
	for i := 0; i < 20; i++ {
		again, _ := m.Rewrite(context.Background(), req)
		if again != first {
			t.Fatalf("run %d: %+v != %+v", i, again, first)
		}
	}
}
