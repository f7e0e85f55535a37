package llm_test

import (
	"testing"

	"github.com/ragchat/ragchat/internal/llm"
)

// TestFallbackRewriteCountsAllHistory: the fallback keeps the question
// and tells a follow-up by the rule gate, with any history the strategy
// gave the rewrite (recent rounds, earlier rounds or a summary) counting
// as history.
func TestFallbackRewriteCountsAllHistory(t *testing.T) {
	const q = " 那第四台设备会报什么错？ "
	round := []llm.Round{{User: "一个VPN账号最多可以注册几台设备？", Assistant: "3 台"}}
	tests := []struct {
		name string
		req  llm.RewriteRequest
		want bool
	}{
		{"no history", llm.RewriteRequest{}, false},
		{"blank summary", llm.RewriteRequest{Summary: " \n "}, false},
		{"recent rounds", llm.RewriteRequest{History: round}, true},
		{"earlier rounds", llm.RewriteRequest{Earlier: round}, true},
		{"a summary", llm.RewriteRequest{Summary: "用户问：一个VPN账号最多可以注册几台设备？；助手回答结果：已回答"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Question = q
			if got := tc.req.HasHistory(); got != tc.want {
				t.Errorf("HasHistory = %v, want %v", got, tc.want)
			}
			got := llm.FallbackRewrite(tc.req)
			if got.StandaloneQuestion != "那第四台设备会报什么错？" || got.RequiresHistory != tc.want {
				t.Errorf("FallbackRewrite = %+v, want the trimmed question, requiresHistory %v", got, tc.want)
			}
		})
	}
}
