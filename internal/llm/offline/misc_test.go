package offline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
)

func TestSummarize(t *testing.T) {
	m := offline.New(offline.Options{})
	tests := []struct {
		name string
		req  llm.SummarizeRequest
		want string
	}{
		{
			name: "user turns and outcomes apart (D10)",
			req: llm.SummarizeRequest{Items: []llm.SummaryItem{
				{Question: "退款多久到账", Outcome: "answered"},
				{Question: "我的订单号是 12345，我用的是 Pro 套餐。信用卡渠道是否更慢？", Outcome: "answered"},
			}},
			want: "用户问：退款多久到账；助手回答结果：已回答\n用户陈述：我的订单号是 12345，我用的是 Pro 套餐；用户问：信用卡渠道是否更慢？；助手回答结果：已回答",
		},
		{
			name: "outcomes and english",
			req: llm.SummarizeRequest{Previous: "用户问：退款多久到账；助手回答结果：已回答", Items: []llm.SummaryItem{
				{Question: "保修政策\n是什么", Outcome: "refused: no evidence"},
				{Question: "My order is ORD-7 and I am on the Pro plan. How long do refunds take?", Outcome: "failed"},
				{Question: "   ", Outcome: "answered"},
			}},
			want: "用户问：退款多久到账；助手回答结果：已回答\n用户问：保修政策 是什么；助手回答结果：已拒答（无授权资料）\n" +
				"User stated: My order is ORD-7 and I am on the Pro plan; User asked: How long do refunds take?; Assistant outcome: failed",
		},
		{
			name: "parts are merged in order",
			req:  llm.SummarizeRequest{Previous: "用户陈述：订单 A-1", Parts: []string{"用户陈述：订单 A-2\n", "用户陈述：订单 A-3"}},
			want: "用户陈述：订单 A-1\n用户陈述：订单 A-2\n用户陈述：订单 A-3",
		},
		{
			name: "cap drops oldest lines",
			req: llm.SummarizeRequest{Previous: "用户问：第一个问题；结果：已回答\n用户问：第二个问题；结果：已回答", MaxChars: 40, Items: []llm.SummaryItem{
				{Question: "第三个问题是什么", Outcome: "canceled"},
			}},
			want: "用户问：第二个问题；结果：已回答\n用户问：第三个问题是什么；助手回答结果：已取消",
		},
		{
			name: "single long line is cut",
			req:  llm.SummarizeRequest{MaxChars: 10, Items: []llm.SummaryItem{{Question: "一二三四五六七八九十", Outcome: "answered"}}},
			want: "用户陈述：一二三四五",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.Summarize(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Summarize =\n%s\nwant\n%s", got, tc.want)
			}
			limit := tc.req.MaxChars
			if limit == 0 {
				limit = llm.DefaultSummaryMaxChars
			}
			if n := len([]rune(got)); n > limit {
				t.Errorf("summary has %d runes, cap %d", n, limit)
			}
		})
	}
}

func TestTitleAndNames(t *testing.T) {
	m := offline.New(offline.Options{})
	got, err := m.Title(context.Background(), "  上传文件最大是多少？ ")
	if err != nil || got != "上传文件最大是多少" {
		t.Errorf("Title = %q, %v", got, err)
	}
	long, _ := m.Title(context.Background(), strings.Repeat("很长的问题", 20))
	if n := len([]rune(long)); n > llm.MaxTitleRunes {
		t.Errorf("title has %d runes", n)
	}
	if m.Name() != "offline" || m.DefaultChatModel() != "offline-extractive-1" {
		t.Errorf("names = %q %q", m.Name(), m.DefaultChatModel())
	}
}
