package offline_test

import (
	"context"
	"slices"
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

// TestRewriteChoosesTheReferent covers the referent of a follow-up
// (docs/ENGINE.md D5, "History strategies"): among every round the request
// carries (the newest rounds, the older rounds the strategy ranked, the
// summary's lines), the one that best matches what the follow-up mentions,
// the noun it points back with first (第四台设备 ↔ 几台设备, "the fourth
// device" ↔ "devices"), a term counting less the more rounds hold it; the
// previous round when nothing matches an older one specifically (a frame
// follow-up 那X呢, a term only in an older answer, an equal match).
func TestRewriteChoosesTheReferent(t *testing.T) {
	const (
		vpn       = "一个VPN账号最多可以注册几台设备？"
		vpnAnswer = "每个 VPN 账号最多可以注册 3 台设备。注册第 4 台设备时，客户端会报错误码 VPN-409-DEVICE-LIMIT。"
		printer   = "打印机设备怎么连接？"
		overdue   = "逾期提交报销单会返回什么错误码？"
		followUp  = "那第四台设备会报什么错？"
		toVPN     = "关于一个VPN账号最多可以注册几台设备：第四台设备会报什么错？"

		vpnEN       = "How many devices can one VPN account register?"
		vpnAnswerEN = "Each VPN account may register at most 3 devices. Registering a fourth device fails with the error VPN-409-DEVICE-LIMIT."
		followUpEN  = "What error does the fourth device get?"
		toVPNEN     = "Regarding devices VPN account register: What error does the fourth device get?"
	)
	// expenses are the six expense rounds of the dialogue, with
	// answers as the offline model gives them.
	expenses := []llm.Round{
		{User: "出差住酒店每晚可以报销多少钱？", Assistant: "一线城市每晚报销上限为 600 元。"},
		{User: "出差的餐补每天多少钱？", Assistant: "餐补为每天 100 元。"},
		{User: "市内打车费可以报销吗？", Assistant: "可以凭行程单报销，每天不超过 150 元。"},
		{User: "报销单需要在多久之内提交？", Assistant: "出差结束后 30 天之内提交。"},
		{User: "发票丢失了应该怎么报销？", Assistant: "填写发票遗失说明，由部门负责人签字。"},
		{User: overdue, Assistant: "逾期提交报销单时，报销系统会返回错误码 EXP_SUBMISSION_OVERDUE，需要部门负责人审批。"},
	}
	expensesEN := []llm.Round{
		{User: "How much can I claim for a hotel per night?", Assistant: "Hotel stays are reimbursed up to 200 dollars per night."},
		{User: "What is the daily meal allowance?", Assistant: "The meal allowance is 50 dollars per day."},
		{User: "Are taxi fares reimbursed?", Assistant: "Taxi fares within the city are reimbursed with a receipt."},
		{User: "When must expense reports be submitted?", Assistant: "Within 30 days after the trip."},
		{User: "What if I lose a receipt?", Assistant: "A lost receipt needs a signed statement from the manager."},
		{User: "What error does a late expense report get?", Assistant: "A late expense report is rejected with the error EXP-422-OVERDUE."},
	}
	vpnRound := llm.Round{User: vpn, Assistant: vpnAnswer}
	vpnRoundEN := llm.Round{User: vpnEN, Assistant: vpnAnswerEN}
	// withLastAnswer returns rs with the last answer followed by extra, as
	// an extractive answer that cited a second document reads.
	withLastAnswer := func(rs []llm.Round, extra string) []llm.Round {
		out := slices.Clone(rs)
		out[len(out)-1].Assistant += extra
		return out
	}
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
		// The dialogue under each strategy: what each keeps of round 1.
		{"PRIORITIZED: round 1 among the ranked earlier rounds", llm.RewriteRequest{History: expenses[1:], Earlier: []llm.Round{vpnRound, expenses[0]}}, followUp, toVPN},
		{"SLIDING_WINDOW with all seven rounds", llm.RewriteRequest{History: append([]llm.Round{vpnRound}, expenses...)}, followUp, toVPN},
		{"HYBRID: round 1 in the summary", llm.RewriteRequest{History: expenses[1:], Summary: summaryOf(vpn, expenses[0].User)}, followUp, toVPN},
		{"SEMANTIC_SUMMARY: the summary alone", llm.RewriteRequest{Summary: summaryOf(append([]string{vpn}, "退款多久到账？", overdue)...)}, followUp, toVPN},
		{"the latest question shares a generic term (错误)", llm.RewriteRequest{History: expenses[1:], Earlier: []llm.Round{vpnRound}}, "那第四台设备会报什么错误？", "关于一个VPN账号最多可以注册几台设备：第四台设备会报什么错误？"},
		{"the latest answer also mentions devices", llm.RewriteRequest{History: withLastAnswer(expenses[1:], "注册第 4 台设备时，客户端会报错误码 VPN-409-DEVICE-LIMIT。"), Earlier: []llm.Round{vpnRound}}, followUp, toVPN},
		{"the round that says how many devices wins over one on a device", llm.RewriteRequest{History: []llm.Round{{User: printer}, expenses[5]}, Earlier: []llm.Round{vpnRound}}, followUp, toVPN},
		{"an equal match: the newer round", llm.RewriteRequest{History: []llm.Round{{User: "打印机最多可以连接几台设备？"}, expenses[5]}, Earlier: []llm.Round{vpnRound}}, followUp,
			"关于打印机最多可以连接几台设备：第四台设备会报什么错？"},
		{"a pointed-at noun in an older answer (这个配置)", llm.RewriteRequest{History: []llm.Round{{User: "如何设置上传大小限制？", Assistant: "在配置文件的 upload.max_size 中设置。"}, {User: "退款多久到账？", Assistant: "3 个工作日。"}}},
			"这个配置在哪里改？", "设置上传大小限制的配置在哪里改？"},
		// The previous round stays the referent.
		{"the seed dialogue (README)", llm.RewriteRequest{History: rounds("上传文件最大是多少？")}, "那超过以后返回什么错误码？", "关于上传文件最大：超过以后返回什么错误码？"},
		{"nothing matches an older round: the previous round", llm.RewriteRequest{History: rounds("上传文件最大是多少？"), Earlier: []llm.Round{vpnRound}, Summary: summaryOf(expenses[0].User)},
			"那超过以后返回什么错误码？", "关于上传文件最大：超过以后返回什么错误码？"},
		{"a term only in an older answer: the previous round", llm.RewriteRequest{History: []llm.Round{{User: "上传文件最大是多少？", Assistant: "最大 20MB，超过以后返回 413。"}, {User: "退款多久到账？", Assistant: "3 个工作日。"}}},
			"那超过以后怎么办？", "关于退款到账：超过以后怎么办？"},
		{"a frame follow-up stays with the previous round", llm.RewriteRequest{History: rounds("退款多久到账？"), Earlier: rounds("银行卡怎么绑定？")}, "那银行卡呢？",
			"银行卡退款多久到账？"},
		{"nothing matches and no recent round: the newest summarised question", llm.RewriteRequest{Summary: summaryOf(expenses[0].User, overdue)},
			"那超过以后怎么办？", "关于逾期提交报销单会返回错误码：超过以后怎么办？"},
		// English.
		{"english PRIORITIZED", llm.RewriteRequest{History: expensesEN[1:], Earlier: []llm.Round{vpnRoundEN, expensesEN[0]}}, followUpEN, toVPNEN},
		{"english all seven rounds recent", llm.RewriteRequest{History: append([]llm.Round{vpnRoundEN}, expensesEN...)}, followUpEN, toVPNEN},
		{"english summary line", llm.RewriteRequest{History: expensesEN[1:], Summary: summaryOf(vpnEN)}, followUpEN, toVPNEN},
		{"english the latest answer also mentions devices", llm.RewriteRequest{History: withLastAnswer(expensesEN[1:], " Each VPN account may register at most 3 devices."), Earlier: []llm.Round{vpnRoundEN}}, followUpEN, toVPNEN},
		{"english leading and", llm.RewriteRequest{History: rounds("How long do refunds take?"), Earlier: []llm.Round{vpnRoundEN}},
			"And what error does the fourth device get?", "Regarding devices VPN account register: what error does the fourth device get?"},
		{"english nothing matches an older round", llm.RewriteRequest{History: rounds("How long do refunds take?"), Earlier: []llm.Round{vpnRoundEN}}, "Why?", "Regarding refunds take: Why?"},
	}
	m := offline.New(offline.Options{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
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
