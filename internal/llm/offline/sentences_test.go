package offline

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"单个文件最大20MB。超过返回ERR_FILE_TOO_LARGE！真的吗？是；对", []string{"单个文件最大20MB。", "超过返回ERR_FILE_TOO_LARGE！", "真的吗？", "是；", "对"}},
		{"Version 1.2 is out. Upgrade now! Why? Because.", []string{"Version 1.2 is out.", "Upgrade now!", "Why?", "Because."}},
		{"- 第一条\n- 第二条\n\n", []string{"第一条", "第二条"}},
	}
	for _, tc := range tests {
		if got := splitSentences(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitSentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPieces(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"根据资料：返回 ERR_FILE_TOO_LARGE [C1]。", []string{"根", "据", "资", "料", "：", "返", "回", " ERR_FILE_TOO_LARGE ", "[C1]", "。"}},
		{"According to the docs: yes [C2].", []string{"According ", "to ", "the ", "docs: ", "yes ", "[C2]."}},
	}
	for _, tc := range tests {
		got := pieces(tc.in)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("pieces(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Join(got, "") != tc.in {
			t.Errorf("pieces(%q) do not concatenate back", tc.in)
		}
	}
}
