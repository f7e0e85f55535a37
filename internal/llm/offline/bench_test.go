package offline_test

import (
	"context"
	"errors"
	"io"
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
