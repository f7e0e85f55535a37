package textsearch

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// benchText returns about 2 KB of mixed Chinese and English chat text.
func benchText() string {
	const para = "我们讨论了部署方案：VPN 设备连不上公司网络，日志里是 ERR_FILE_TOO_LARGE。" +
		"The upload failed because the file is larger than the 20 MB limit; please split it and retry. "
	var b strings.Builder
	for b.Len() < 2048 {
		b.WriteString(para)
	}
	s := b.String()[:2048]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// BenchmarkTokens tokenises a 2 KB Chinese+English document.
func BenchmarkTokens(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(Tokens(text))
	}
	b.ReportMetric(float64(n), "tokens/doc")
}

// BenchmarkIndexEncodings tokenises the same document and encodes it for
// both indexes, as a write of a message does.
func BenchmarkIndexEncodings(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		toks := Tokens(text)
		_ = TSVector(toks)
		_ = FTS5Document(toks)
	}
}

// BenchmarkQuery tokenises a short mixed query.
func BenchmarkQuery(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Query("VPN 设备 err_file_too_large 部署方案")
	}
}
