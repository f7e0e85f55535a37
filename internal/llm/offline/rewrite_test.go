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

// TestRewriteLooksPastTheNewestRounds covers the referent of a follow-up
// (docs/ENGINE.md D5, "History strategies"): the newest rounds first, then
// the older rounds the history strategy ranked (Earlier, best first) and
// the summary, when the follow-up's subject is only there; a frame
// follow-up (那X呢) and one whose subject nothing shares stay with the
// previous round.
func TestRewriteLooksPastTheNewestRounds(t *testing.T) {
	const (
		vpn      = "一个VPN账号最多可以注册几台设备？"
		printer  = "打印机设备怎么连接？"
		hotel    = "出差住酒店每晚可以报销多少钱？"
		overdue  = "逾期提交报销单会返回什么错误码？"
		followUp = "那第四台设备会报什么错？"
		toVPN    = "关于一个VPN账号最多可以注册几台设备：第四台设备会报什么错？"
	)
	summaryOf := func(questions ...string) string {
		var lines []string
		for _, q := range questions {
			lines = append(lines, llm.SummaryLine(llm.SummaryItem{Question: q, Outcome: "answered"}))
		}
		return strings.Join(lines, "\n")
	}
	tests := []struct {
		name     string
		req      llm.RewriteRequest
		question string
		want     string
	}{
		{"an earlier round shares the subject", llm.RewriteRequest{History: rounds(hotel, overdue), Earlier: rounds(vpn)}, followUp, toVPN},
		{"the best-ranked earlier round wins", llm.RewriteRequest{History: rounds(hotel, overdue), Earlier: rounds(vpn, printer)}, followUp, toVPN},
		{"earlier rounds that do not share are skipped", llm.RewriteRequest{History: rounds(overdue), Earlier: rounds(hotel, vpn)}, followUp, toVPN},
		{"a summary line shares the subject", llm.RewriteRequest{History: rounds(hotel, overdue), Summary: summaryOf(vpn, "退款多久到账？")}, followUp, toVPN},
		{"the summary alone", llm.RewriteRequest{Summary: summaryOf(vpn)}, followUp, toVPN},
		{"an older recent round shares the subject", llm.RewriteRequest{History: rounds(vpn, hotel, overdue)}, followUp, toVPN},
		{"a recent round wins over an earlier one", llm.RewriteRequest{History: rounds(printer, overdue), Earlier: rounds(vpn)}, followUp,
			"关于打印机设备连接：第四台设备会报什么错？"},
		{"a frame follow-up stays with the previous round", llm.RewriteRequest{History: rounds("退款多久到账？"), Earlier: rounds("银行卡怎么绑定？")}, "那银行卡呢？",
			"银行卡退款多久到账？"},
		{"nothing shares the subject: the previous round", llm.RewriteRequest{History: rounds("上传文件最大是多少？"), Earlier: rounds(vpn), Summary: summaryOf(hotel)},
			"那超过以后返回什么错误码？", "关于上传文件最大：超过以后返回什么错误码？"},
		{"nothing shares the subject and no recent round: the newest summarised question", llm.RewriteRequest{Summary: summaryOf(hotel, overdue)},
			"那超过以后怎么办？", "关于逾期提交报销单会返回错误码：超过以后怎么办？"},
		{"english earlier round", llm.RewriteRequest{History: rounds("How long do refunds take?"), Earlier: rounds("How many devices can one VPN account register?")},
			"And what error does the fourth device get?", "Regarding devices VPN account register: what error does the fourth device get?"},
		{"english summary line", llm.RewriteRequest{History: rounds("How long do refunds take?"), Summary: summaryOf("How many devices can one VPN account register?")},
			"And what error does the fourth device get?", "Regarding devices VPN account register: what error does the fourth device get?"},
	}
	m := offline.New(offline.Options{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Question = tc.question
			got, err := m.Rewrite(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if !got.RequiresHistory || got.StandaloneQuestion != tc.want {
				t.Errorf("Rewrite(%q) = %v %q, want true %q", tc.question, got.RequiresHistory, got.StandaloneQuestion, tc.want)
			}
		})
	}
}
