package chunker

import "testing"

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
				if _, err := Split(doc, bc.opts); err != nil {
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
		if _, err := Split(doc, Options{Counter: WordCounter{}}); err != nil {
			b.Fatal(err)
		}
	}
}
