package chunker

import (
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// pieces cuts s at cuts and trims the pieces, dropping blank ones.
func pieces(s string, cuts []int) []string {
	var out []string
	from := 0
	for _, c := range append(cuts, len(s)) {
		if p := strings.TrimSpace(s[from:c]); p != "" {
			out = append(out, p)
		}
		from = c
	}
	return out
}

func TestSentenceCuts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"chinese terminators", "单个文件最大为20MB。超过限制怎么办？返回413！注意；还有……结束",
			[]string{"单个文件最大为20MB。", "超过限制怎么办？", "返回413！", "注意；", "还有……", "结束"}},
		{"chinese closing quote stays with its sentence", "他说：“不行。”然后离开了。",
			[]string{"他说：“不行。”", "然后离开了。"}},
		{"full-width question and exclamation run", "真的吗？！是的。", []string{"真的吗？！", "是的。"}},
		{"english sentences", "The limit is 20 MB. Larger files fail! Why? Because.",
			[]string{"The limit is 20 MB.", "Larger files fail!", "Why?", "Because."}},
		{"decimal is not a boundary", "The limit is 20.5MB for images. Videos differ.",
			[]string{"The limit is 20.5MB for images.", "Videos differ."}},
		{"version numbers", "Upgrade to v1.2.3 now. It fixes 2.0 bugs.",
			[]string{"Upgrade to v1.2.3 now.", "It fixes 2.0 bugs."}},
		{"abbreviations", "Use a format, e.g. PDF or DOCX. Ask Dr. Smith, i.e. The owner. Done.",
			[]string{"Use a format, e.g. PDF or DOCX.", "Ask Dr. Smith, i.e. The owner.", "Done."}},
		{"initialisms", "Servers in the U.S. Region are fast. J. Doe said so.",
			[]string{"Servers in the U.S. Region are fast.", "J. Doe said so."}},
		{"lower-case continuation", "Upload it etc. and wait. Then check.",
			[]string{"Upload it etc. and wait.", "Then check."}},
		{"etc ends a sentence before a capital", "PDF, DOCX etc. Other types fail.",
			[]string{"PDF, DOCX etc.", "Other types fail."}},
		{"leading list number", "1. Open the settings. 2. Save.", []string{"1. Open the settings.", "2. Save."}},
		{"quote after period", `He said "stop." Then left.`, []string{`He said "stop."`, "Then left."}},
		{"ellipsis", "Wait... Then go.", []string{"Wait...", "Then go."}},
		{"english period before chinese", "Limit is 20MB.超过返回413。", []string{"Limit is 20MB.", "超过返回413。"}},
		{"line break between items", "设计conversation表\n区分原始问题", []string{"设计conversation表", "区分原始问题"}},
		{"soft-wrapped english line", "The maximum size of a\nsingle file is 20 MB.\nAdmins differ.",
			[]string{"The maximum size of a\nsingle file is 20 MB.", "Admins differ."}},
		{"url is not cut", "See https://example.com/a.b for details. Done.",
			[]string{"See https://example.com/a.b for details.", "Done."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pieces(tt.in, slices.Collect(sentenceCuts(tt.in))))
		})
	}
}

func TestClauseAndWordCuts(t *testing.T) {
	tests := []struct {
		name string
		cut  func(string) iter.Seq[int]
		in   string
		want []string
	}{
		{"chinese clauses", clauseCuts, "首先，打开设置、选择上传：然后保存；完成",
			[]string{"首先，", "打开设置、", "选择上传：", "然后保存；", "完成"}},
		{"english clauses keep numbers and urls", clauseCuts, "We allow 1,000 files, at 10:30 daily; see http://x: ok",
			[]string{"We allow 1,000 files,", "at 10:30 daily;", "see http://x:", "ok"}},
		{"words and cjk characters", wordCuts, "上传 file 限制ab",
			[]string{"上", "传", "file", "限", "制", "ab"}},
		{"runes", runeCuts, "a上b", []string{"a", "上", "b"}},
		{"lines", lineCuts, "a\n  b\nc", []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pieces(tt.in, slices.Collect(tt.cut(tt.in))))
		})
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\r\nb\rc", "a\nb\nc"},
		{"\uFEFFtext", "text"},
		{"a\x00b\x07c\td", "abc\td"},
		{"a\u2028b", "a\nb"},
		{"bad\xffbyte", "bad\uFFFDbyte"},
		{"已是规范文本。\n", "已是规范文本。\n"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Normalize(tt.in), "%q", tt.in)
	}
}
