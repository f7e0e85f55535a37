package chunker

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomDocument builds a document of about size bytes from pieces that
// exercise every rule of Split: headings (long ones too), fences, tables,
// list items, sentences in both languages, abbreviations, decimals,
// clause punctuation, soft and hard line breaks, runs of blanks and long
// unpunctuated runs.
func randomDocument(r *rand.Rand, size int) string {
	pieces := []string{
		"上传", "文件", "限制", "。", "，", "；", "！", "？", "……", "、", "：", "」", "（注）",
		"the", "limit", "is", "20.5MB", "e.g.", "Dr.", "J.", "v1.2.3", "1,000", "10:30", "http://x.y/z",
		". ", "! ", "? ", ", ", "; ", ": ", "\"", ")", " ", "  ", "\t", " ", " ",
		"\n", "\n", "\n\n", "\n\n", "\n   ", "\nthe", "\nThe",
		"\n# 标题\n", "\n## Section two ##\n", "\n### 深层 标题\n", "\n#### " + strings.Repeat("长标题", 12) + "\n",
		"\n```go\nfunc f() {\n    return 1\n}\n```\n", "\n~~~\n未闭合\n",
		"\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n",
		"\n- 项目一\n  续行\n", "\n2. Second step.\n", "\n* item\n",
		strings.Repeat("无标点中文", 8), strings.Repeat("word ", 10), strings.Repeat("x", 40),
		strings.Repeat(" ", 30),
	}
	var b strings.Builder
	for b.Len() < size {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// TestSplitMatchesReference compares Split with the chunker as it was
// before it was made linear on random documents, options and counters.
func TestSplitMatchesReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(31, 1))
	counters := []Counter{WordCounter{}, RuneCounter{}}
	for i := range 300 {
		doc := randomDocument(r, 50+r.IntN(3000))
		opts := Options{MaxTokens: 4 + r.IntN(200), Counter: counters[i%len(counters)]}
		switch r.IntN(3) {
		case 0:
			opts.OverlapTokens = NoOverlap
		case 1:
			opts.OverlapTokens = r.IntN(opts.MaxTokens)
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			want, wantErr := refSplit(doc, opts)
			got, err := split(t.Context(), doc, opts)
			if wantErr != nil {
				if err == nil || err.Error() != wantErr.Error() {
					t.Fatalf("error %v, want %v", err, wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d chunks, want %d", len(got), len(want))
			}
			for j := range want {
				if got[j] != want[j] {
					t.Fatalf("chunk %d:\n got %+v\nwant %+v", j, got[j], want[j])
				}
			}
		})
	}
}
