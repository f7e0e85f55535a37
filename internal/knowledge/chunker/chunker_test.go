package chunker_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/chunker"
)

// fixedCounter counts every character as n tokens.
type fixedCounter int

func (c fixedCounter) Count(s string) int { return int(c) * len([]rune(s)) }

func TestSplitRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts chunker.Options
		text string
	}{
		{"nil counter", chunker.Options{MaxTokens: 100}, "文本。"},
		{"negative max", chunker.Options{MaxTokens: -1, Counter: chunker.WordCounter{}}, "文本。"},
		{"max equals overlap", chunker.Options{MaxTokens: 50, OverlapTokens: 50, Counter: chunker.WordCounter{}}, "文本。"},
		{"max below overlap", chunker.Options{MaxTokens: 50, OverlapTokens: 80, Counter: chunker.WordCounter{}}, "文本。"},
		{"negative overlap", chunker.Options{MaxTokens: 50, OverlapTokens: -5, Counter: chunker.WordCounter{}}, "文本。"},
		{"a character larger than a chunk", chunker.Options{MaxTokens: 5, OverlapTokens: chunker.NoOverlap, Counter: fixedCounter(10)}, "文本。"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, err := chunker.Split(t.Context(), tt.text, tt.opts)
			require.Error(t, err)
			assert.Equal(t, domain.CodeBadUserInput, domain.ErrorCode(err))
			assert.Nil(t, chunks)
		})
	}
}

func TestSplitDefaults(t *testing.T) {
	// MaxTokens alone is valid: the default overlap shrinks to a quarter.
	chunks, err := chunker.Split(t.Context(), "第一句。第二句。", chunker.Options{MaxTokens: 20, Counter: chunker.WordCounter{}})
	require.NoError(t, err)
	require.Len(t, chunks, 1)
	// Zero options but the counter use the 400-token default.
	long := strings.Repeat("这是一个用于测试默认块大小的句子。", 60) // 17 tokens each, 1020 in all
	chunks, err = chunker.Split(t.Context(), long, chunker.Options{Counter: chunker.WordCounter{}})
	require.NoError(t, err)
	require.Len(t, chunks, 3)
	for _, c := range chunks {
		assert.LessOrEqual(t, c.Tokens, chunker.DefaultMaxTokens)
		assert.Greater(t, c.Tokens, chunker.DefaultMaxTokens-17-chunker.DefaultOverlapTokens)
	}
}

// want is an expected chunk: its heading and content.
type want struct{ heading, content string }

func TestSplit(t *testing.T) {
	const (
		zh1 = "退款到账时间取决于支付方式。"                   // 14 tokens
		zh2 = "支付宝退款一到三个工作日到账。"                  // 15
		zh3 = "银行卡退款三到七个工作日到账。"                  // 15
		zh4 = "信用卡退款七到十五个工作日到账。"                 // 16
		en1 = "The limit is 20.5MB for images."  // 6
		en2 = "Larger files fail with HTTP 413." // 6
		en3 = "Admins may upload 100 MB."        // 5
		en4 = "Batches are capped at 200 MB."    // 6
	)
	table := "| 支付方式 | 到账时间 |\n|---|---|\n| 支付宝 | 1–3 个工作日 |\n| 银行卡 | 3–7 个工作日 |"                           // 34
	code := "```sql\n# not a heading\nCREATE INDEX ON items USING hnsw (embedding vector_cosine_ops);\n```" // 14
	tests := []struct {
		name    string
		text    string
		max     int
		overlap int
		counter chunker.Counter
		want    []want
	}{
		{name: "empty", text: "", max: 50, want: nil},
		{name: "white space only", text: " \n\n\t \r\n", max: 50, want: nil},
		{name: "headings without text", text: "# 标题\n\n## 子标题\n", max: 50, want: nil},
		{
			name: "chinese with overlap of one sentence", text: zh1 + zh2 + zh3 + zh4, max: 32, overlap: 15,
			want: []want{{"", zh1 + zh2}, {"", zh2 + zh3}, {"", zh3 + zh4}},
		},
		{
			name: "english, tail sentence too big to overlap", text: strings.Join([]string{en1, en2, en3, en4}, " "), max: 12, overlap: 5,
			want: []want{{"", en1 + " " + en2}, {"", en3 + " " + en4}},
		},
		{
			name: "english with overlap", text: strings.Join([]string{en1, en2, en3, en4}, " "), max: 12, overlap: 6,
			want: []want{{"", en1 + " " + en2}, {"", en2 + " " + en3}, {"", en3 + " " + en4}},
		},
		{
			name: "mixed chinese and english keep their spacing",
			text: "上传文件最大为20MB。The limit applies to every user. 管理员上限为100MB。", max: 16, overlap: chunker.NoOverlap,
			want: []want{{"", "上传文件最大为20MB。The limit applies to every user."}, {"", "管理员上限为100MB。"}},
		},
		{
			name: "heading paths",
			text: "前言。\n\n# 上传限制\n\n单个文件最大为20MB。\n\n## 错误码\n\n超过限制返回413。\n\n### 详情\n\n错误码为ERR_FILE_TOO_LARGE。\n\n## 管理员 ##\n\n管理员上限为100MB。\n",
			max:  400,
			want: []want{
				{"", "前言。"},
				{"上传限制", "上传限制\n单个文件最大为20MB。"},
				{"上传限制 > 错误码", "上传限制 > 错误码\n超过限制返回413。"},
				{"上传限制 > 错误码 > 详情", "上传限制 > 错误码 > 详情\n错误码为ERR_FILE_TOO_LARGE。"},
				{"上传限制 > 管理员", "上传限制 > 管理员\n管理员上限为100MB。"},
			},
		},
		{
			name: "no overlap across headings",
			text: "# 甲\n\n" + zh1 + zh2 + "\n\n# 乙\n\n" + zh3 + zh4, max: 40, overlap: 20,
			want: []want{{"甲", "甲\n" + zh1 + zh2}, {"乙", "乙\n" + zh3 + zh4}},
		},
		{
			name: "a long heading path drops outer headings",
			text: "# 产品帮助中心\n\n## 上传\n\n### 限制\n\n最大20MB。", max: 20, overlap: chunker.NoOverlap,
			want: []want{{"上传 > 限制", "上传 > 限制\n最大20MB。"}},
		},
		{
			name: "code block that fits stays in the chunk",
			text: "## 示例\n\n创建索引：\n\n" + code + "\n\n完成。", max: 400,
			want: []want{{"示例", "示例\n创建索引：\n\n" + code + "\n\n完成。"}},
		},
		{
			name: "code block is never cut when it fits a chunk alone",
			text: "## 示例\n\n创建索引：\n\n" + code + "\n\n完成。", max: 17, overlap: chunker.NoOverlap,
			want: []want{{"示例", "示例\n创建索引："}, {"示例", "示例\n" + code}, {"示例", "示例\n完成。"}},
		},
		{
			name: "oversized code block is cut between lines, keeping indentation",
			text: "```go\nfunc main() {\n    a := 1\n    b := 2\n}\n```", max: 8, overlap: chunker.NoOverlap,
			want: []want{{"", "```go\nfunc main() {\n    a := 1"}, {"", "    b := 2\n}\n```"}},
		},
		{
			name: "table stays whole", text: table + "\n\n说明。", max: 36, overlap: chunker.NoOverlap,
			want: []want{{"", table}, {"", "说明。"}},
		},
		{
			name: "oversized table is cut between rows", text: table + "\n\n说明。", max: 30, overlap: chunker.NoOverlap,
			want: []want{{"", "| 支付方式 | 到账时间 |\n|---|---|\n| 支付宝 | 1–3 个工作日 |"}, {"", "| 银行卡 | 3–7 个工作日 |\n\n说明。"}},
		},
		{
			name: "list items stay whole",
			text: "- 支持PDF文件。\n- 支持DOCX文件。\n- 支持PNG图片。", max: 15, overlap: chunker.NoOverlap,
			want: []want{{"", "- 支持PDF文件。\n- 支持DOCX文件。"}, {"", "- 支持PNG图片。"}},
		},
		{
			name: "list items overlap like sentences",
			text: "- 支持PDF文件。\n- 支持DOCX文件。\n- 支持PNG图片。", max: 15, overlap: 7,
			want: []want{{"", "- 支持PDF文件。\n- 支持DOCX文件。"}, {"", "- 支持DOCX文件。\n- 支持PNG图片。"}},
		},
		{
			name: "giant sentence is cut between clauses and its pieces never overlap",
			text: "首先打开设置页面，然后选择上传选项，接着填写文件大小限制，最后保存配置并重启服务。", max: 20, overlap: 5,
			want: []want{{"", "首先打开设置页面，然后选择上传选项，"}, {"", "接着填写文件大小限制，"}, {"", "最后保存配置并重启服务。"}},
		},
		{
			name: "unpunctuated chinese is cut between characters",
			text: "一二三四五六七八九十", max: 4, overlap: chunker.NoOverlap,
			want: []want{{"", "一二三四"}, {"", "五六七八"}, {"", "九十"}},
		},
		{
			name: "unpunctuated english is cut between words",
			text: "alpha beta gamma delta epsilon zeta eta", max: 3, overlap: chunker.NoOverlap,
			want: []want{{"", "alpha beta gamma"}, {"", "delta epsilon zeta"}, {"", "eta"}},
		},
		{
			name: "a word longer than a chunk is cut between characters",
			text: "supercalifragilistic", max: 8, overlap: chunker.NoOverlap, counter: chunker.RuneCounter{},
			want: []want{{"", "supercal"}, {"", "ifragili"}, {"", "stic"}},
		},
		{
			name: "windows newlines are normalised",
			text: "第一句。\r\n\r\n第二句。", max: 50,
			want: []want{{"", "第一句。\n\n第二句。"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			counter := tt.counter
			if counter == nil {
				counter = chunker.WordCounter{}
			}
			chunks, err := chunker.Split(t.Context(), tt.text, chunker.Options{MaxTokens: tt.max, OverlapTokens: tt.overlap, Counter: counter})
			require.NoError(t, err)
			var got []want
			for i, c := range chunks {
				got = append(got, want{c.Heading, c.Content})
				assert.Equal(t, i, c.Ordinal)
				assert.Equal(t, counter.Count(c.Content), c.Tokens)
				assert.LessOrEqual(t, c.Tokens, tt.max)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
