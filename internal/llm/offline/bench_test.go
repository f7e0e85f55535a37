package offline_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
)

func BenchmarkEmbedParagraph(b *testing.B) {
	m := offline.New(offline.Options{})
	texts := []string{corpus["upload"] + corpus["refund"] + corpus["hnsw"]}
	for b.Loop() {
		if _, err := m.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExtractiveAnswer(b *testing.B) {
	m := offline.New(offline.Options{TokenDelay: -1})
	req := llm.ChatRequest{Messages: answerPrompt("上传文件超过限制返回什么错误码？", corpus["upload"], corpus["refund"], corpus["hnsw"], corpus["password"], corpus["summary"])}
	for b.Loop() {
		s, err := m.ChatStream(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := s.Recv(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		_ = s.Close()
	}
}

func BenchmarkRewrite(b *testing.B) {
	m := offline.New(offline.Options{})
	req := llm.RewriteRequest{Question: "那银行卡呢", History: rounds("上传文件最大是多少？", "退款多久到账")}
	for b.Loop() {
		if _, err := m.Rewrite(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRewriteReferent is a follow-up whose referent is chosen among
// the most a PRIORITIZED request carries with the default settings: five
// recent rounds, five ranked earlier rounds and a summary.
func BenchmarkRewriteReferent(b *testing.B) {
	m := offline.New(offline.Options{})
	answer := strings.Repeat("报销单需要在出差结束后 30 天之内提交，逾期提交时系统会返回错误码 EXP-422-OVERDUE。", 6)
	var recent, earlier []llm.Round
	for i := range 5 {
		recent = append(recent, llm.Round{User: fmt.Sprintf("出差第%d天的餐补每天多少钱？", i+1), Assistant: answer})
		earlier = append(earlier, llm.Round{User: fmt.Sprintf("第%d类发票丢失了应该怎么报销？", i+1), Assistant: answer})
	}
	earlier[4] = llm.Round{User: "一个VPN账号最多可以注册几台设备？", Assistant: "每个 VPN 账号最多可以注册 3 台设备。"}
	req := llm.RewriteRequest{
		Question: "那第四台设备会报什么错？", History: recent, Earlier: earlier,
		Summary: llm.SummaryLine(llm.SummaryItem{Question: "出差住酒店每晚可以报销多少钱？", Outcome: "answered"}),
	}
	for b.Loop() {
		if _, err := m.Rewrite(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
