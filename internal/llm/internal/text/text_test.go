package text_test

import (
	"reflect"
	"testing"

	"github.com/ragchat/ragchat/internal/llm/internal/text"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"PostgreSQL如何创建HNSW索引？", []string{"PostgreSQL", "HNSW"}},
		{"It's ERR_FILE_TOO_LARGE, isn't it?", []string{"It's", "ERR_FILE_TOO_LARGE", "isn't", "it"}},
		{"上传20MB文件", []string{"20MB"}},
		{"", nil},
	}
	for _, tc := range tests {
		if got := text.Words(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestQuestionHelpers(t *testing.T) {
	if got := text.TrimQuestion("  上传文件最大是多少？ "); got != "上传文件最大是多少" {
		t.Errorf("TrimQuestion = %q", got)
	}
	if got := text.RemoveZHQuestionWords("上传文件最大是多少吗"); got != "上传文件最大  " {
		t.Errorf("RemoveZHQuestionWords = %q", got)
	}
	if text.CountHan("RAG是什么") != 3 || !text.HasHan("a中") || text.HasHan("abc") {
		t.Error("Han helpers wrong")
	}
}
