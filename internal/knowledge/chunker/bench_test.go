package chunker

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/tokens"
)

// BenchmarkSplit splits a 50 KB mixed Chinese/English Markdown document.
func BenchmarkSplit(b *testing.B) {
	doc := mixedDocument(50 << 10)
	for _, bc := range []struct {
		name string
		opts Options
	}{
		{"words/max=400", Options{Counter: WordCounter{}}},
		{"words/max=100", Options{MaxTokens: 100, OverlapTokens: 20, Counter: WordCounter{}}},
		{"runes/max=400", Options{Counter: RuneCounter{}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Split(b.Context(), doc, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSplitPathological splits 50 KB of unpunctuated Chinese with no
// line breaks, which is cut between characters.
func BenchmarkSplitPathological(b *testing.B) {
	doc := ""
	for len(doc) < 50<<10 {
		doc += "这是一段没有任何标点符号的超长文本"
	}
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := Split(b.Context(), doc, Options{Counter: WordCounter{}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSplitLarge splits 2 MiB of text in the shapes that were
// quadratic before the chunker was made linear — one paragraph, and text
// with single newlines as extracted from PDF files — and, as the baseline,
// sentences in paragraphs between blank lines. It counts with the
// server's default tokenizer (cl100k) and with the estimator, and reports
// the bytes counted per byte of text (counted/B). Every iteration splits a
// text of its own, so the tokenizer's count cache never answers for it.
func BenchmarkSplitLarge(b *testing.B) {
	const size = 2 << 20
	cl100k, err := tokens.Encoding(tokens.CL100KBase)
	if err != nil {
		b.Fatal(err)
	}
	counters := []struct {
		name    string
		counter Counter
	}{
		{"cl100k", cl100k},
		{"estimate", tokens.Estimator{}},
	}
	for _, shape := range []string{
		"paragraph/words", "paragraph/sentences", "paragraph/chinese",
		"newlines/words", "newlines/sentences", "blanklines/sentences",
	} {
		for _, c := range counters {
			b.Run(shape+"/"+c.name, func(b *testing.B) {
				b.SetBytes(size)
				b.ReportAllocs()
				counted := &countingCounter{inner: c.counter}
				for i := range b.N {
					b.StopTimer()
					doc := proseDocument(shape, uint64(i), size)
					b.StartTimer()
					if _, err := Split(b.Context(), doc, Options{Counter: counted}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(counted.bytes)/float64(b.N)/size, "counted/B")
			})
		}
	}
}

// proseDocument returns size bytes of text that does not repeat, made of
// random words (English, or Chinese characters) in the given shape:
// "paragraph/…" on one line, "newlines/…" wrapped at about 70 bytes with
// single newlines, "blanklines/…" in paragraphs of three to six sentences;
// ".../words" without punctuation, ".../sentences" in sentences.
func proseDocument(shape string, seed uint64, size int) string {
	r := rand.New(rand.NewPCG(seed, 2))
	english := strings.Fields("the a file upload limit member size of is to every for and with " +
		"server request answer document chunk token model page text read write user tenant " +
		"quota share link search index vector embedding prompt history round question retry")
	chinese := []rune("上传文件大小限制成员服务器请求回答文档分块模型页面文本读取写入用户租户配额共享链接搜索索引向量嵌入提示历史问题重试")
	var b strings.Builder
	line, sentence := 0, 0
	for b.Len() < size {
		if strings.HasSuffix(shape, "chinese") {
			b.WriteRune(chinese[r.IntN(len(chinese))])
			continue
		}
		w := english[r.IntN(len(english))]
		if sentence == 0 && strings.HasSuffix(shape, "sentences") {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		line += len(w)
		sentence++
		switch {
		case strings.HasSuffix(shape, "sentences") && sentence > 5+r.IntN(15):
			sentence = 0
			b.WriteByte('.')
			if strings.HasPrefix(shape, "blanklines") && r.IntN(5) == 0 {
				b.WriteString("\n\n")
				line = 0
				continue
			}
		}
		if strings.HasPrefix(shape, "newlines") && line > 70 {
			b.WriteByte('\n')
			line = 0
		} else {
			b.WriteByte(' ')
		}
	}
	s := b.String()
	return s[:runeStartAtOrBefore(s, size)]
}

// BenchmarkSplitAgainstReference splits the shapes that were quadratic at
// 64 and 128 KiB, with the chunker as it was (refSplit, reference_test.go)
// and as it is, counting with cl100k: the before/after of
// docs/BENCHMARKS.md, "Expensive input". Every iteration splits a text of
// its own, so the tokenizer's count cache never answers for it.
func BenchmarkSplitAgainstReference(b *testing.B) {
	cl100k, err := tokens.Encoding(tokens.CL100KBase)
	if err != nil {
		b.Fatal(err)
	}
	for _, shape := range []string{"paragraph/words", "paragraph/chinese", "newlines/words"} {
		for _, size := range []int{64 << 10, 128 << 10} {
			for _, impl := range []struct {
				name  string
				split func(doc string) error
			}{
				{"before", func(doc string) error { _, err := refSplit(doc, Options{Counter: cl100k}); return err }},
				{"after", func(doc string) error { _, err := Split(b.Context(), doc, Options{Counter: cl100k}); return err }},
			} {
				b.Run(fmt.Sprintf("%s/%dKiB/%s", shape, size>>10, impl.name), func(b *testing.B) {
					b.SetBytes(int64(size))
					for i := range b.N {
						b.StopTimer()
						doc := proseDocument(shape, uint64(i)+1000, size)
						b.StartTimer()
						if err := impl.split(doc); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
