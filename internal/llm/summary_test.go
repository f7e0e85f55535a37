package llm_test

import (
	"reflect"
	"testing"

	"github.com/ragchat/ragchat/internal/llm"
)

func TestKeyEntities(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"上传失败，返回 413 和 E1001，请问怎么办？", []string{"413", "E1001"}},
		{"我付了¥200，另一笔是 3.5 元，订单号 ORD-2024-77。", []string{"200", "3.5", "ORD-2024-77"}},
		{"Order 12,345 was charged $1,200.50 on 2024-05-01 at 10:30.", []string{"12345", "1200.50", "2024-05-01", "10:30"}},
		{"错误码 ERR_FILE_TOO_LARGE，联系 ops@example.com", []string{"ERR_FILE_TOO_LARGE", "ops@example.com"}},
		{"codes E1001,413 and E1001 again; step 3 of 5", []string{"E1001", "413"}},
		{"全角订单１２３４５", []string{"12345"}},
		{"没有数字的问题？", nil},
		{"2024年5月1日下单，6月3号到货，付了¥5，打 8 折省了 3元", []string{"2024年5月1日", "6月3号", "5", "3", "2024"}},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			if got := llm.KeyEntities(tc.text); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("KeyEntities = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMissingEntities(t *testing.T) {
	want := []string{"E1001", "200", "3.5", "12345"}
	tests := []struct {
		summary string
		missing []string
	}{
		{"用户陈述：订单 12,345，金额 ¥200 与 3.5 元；错误 e1001", nil},
		{"用户陈述：订单 12345，金额 200；错误 E1001", []string{"3.5"}},
		{"", want},
	}
	for _, tc := range tests {
		if got := llm.MissingEntities(tc.summary, want); !reflect.DeepEqual(got, tc.missing) {
			t.Errorf("MissingEntities(%q) = %q, want %q", tc.summary, got, tc.missing)
		}
	}
}

func TestSummaryLine(t *testing.T) {
	tests := []struct {
		item llm.SummaryItem
		want string
	}{
		{llm.SummaryItem{Question: "退款多久到账？", Outcome: "answered"}, "用户问：退款多久到账？；助手回答结果：已回答"},
		{llm.SummaryItem{Question: "我的订单号是 12345。", Outcome: "refused: no evidence"}, "用户陈述：我的订单号是 12345；助手回答结果：已拒答（无授权资料）"},
		{llm.SummaryItem{Question: "I'm on the Pro plan. Can I upload 50MB?", Outcome: "answered"}, "User stated: I'm on the Pro plan; User asked: Can I upload 50MB?; Assistant outcome: answered"},
		{llm.SummaryItem{Question: "我的订单号是" + repeat("很长", 121) + "，尾号 ORD-9", Outcome: "failed"},
			"用户陈述：我的订单号是" + repeat("很长", 97) + "…（ORD-9）；助手回答结果：未完成"},
		{llm.SummaryItem{Question: "  ", Outcome: "answered"}, ""},
	}
	for _, tc := range tests {
		if got := llm.SummaryLine(tc.item); got != tc.want {
			t.Errorf("SummaryLine(%q) =\n%s\nwant\n%s", tc.item.Question, got, tc.want)
		}
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}
