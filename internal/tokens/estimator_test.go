package tokens_test

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/tokens"
)

func TestEstimatorCounts(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		{"empty", "", 0},
		{"whitespace is free", " \t\n\r\n  ", 0},
		// 1 + 2 letter runs = 3 → ×1.1 = 3.3 → 4.
		{"letters by four", "a abcde", 4},
		// ceil(7/3) = 3 → 3.3 → 4.
		{"digits by three", "1234567", 4},
		// 6 Han × 1.25 = 7.5 → 8.25 → 9.
		{"han", "退款多久到账", 9},
		// 5 Han + full-width question mark: 7.5 → 9.
		{"cjk punctuation", "那银行卡呢？", 9},
		// 8 runes × 1.25 = 10 → 11.
		{"kana and hangul", "ひらがなカタ한국", 11},
		// 3 punctuation runes: 3.3 → 4.
		{"punctuation", "?!.", 4},
		// emoji: 3 each: 6 → 6.6 → 7.
		{"astral", "😀🎉", 7},
		// Cyrillic letters count one each: 10 → 11.
		{"other scripts", "Приветмир!", 11},
		// Invalid UTF-8 bytes count one each.
		{"invalid utf8", "\xff\xfe", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tokens.Estimator{}.Count(tt.text))
		})
	}
}

func readCorpus(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/mixed.txt")
	require.NoError(t, err)
	return string(b)
}

// TestEstimatorOverestimates checks that the estimate is at least the exact
// count of both OpenAI encodings, on the whole mixed Chinese/English corpus
// and on each of its paragraphs.
func TestEstimatorOverestimates(t *testing.T) {
	corpus := readCorpus(t)
	est := tokens.Estimator{}
	for _, enc := range []string{tokens.CL100KBase, tokens.O200KBase} {
		exact, err := tokens.Encoding(enc)
		require.NoError(t, err)
		t.Run(enc, func(t *testing.T) {
			whole, want := est.Count(corpus), exact.Count(corpus)
			assert.GreaterOrEqual(t, whole, want, "whole corpus")
			// Conservative, but not wildly so.
			assert.LessOrEqual(t, whole, 2*want, "whole corpus")
			for i, p := range strings.Split(corpus, "\n\n") {
				assert.GreaterOrEqual(t, est.Count(p), exact.Count(p), "paragraph %d: %q", i, p)
			}
		})
	}
}

func TestEstimatorDoesNotAllocate(t *testing.T) {
	corpus := readCorpus(t)
	allocs := testing.AllocsPerRun(10, func() { tokens.Estimator{}.Count(corpus) })
	assert.Zero(t, allocs)
}

// sample2K returns about 2 KB of the mixed corpus, cut on a rune boundary.
func sample2K(b *testing.B) string {
	s := readCorpus(b)
	n := 2048
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func benchmarkCount(b *testing.B, c tokens.Counter) {
	s := sample2K(b)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		c.Count(s)
	}
}

func BenchmarkCountEstimator(b *testing.B) { benchmarkCount(b, tokens.Estimator{}) }

func BenchmarkCountCL100K(b *testing.B) { benchmarkCount(b, tokens.Uncached(tokens.Default())) }

func BenchmarkCountO200K(b *testing.B) { benchmarkCount(b, tokens.Uncached(tokens.ForModel("gpt-4o"))) }

// BenchmarkCountCL100KRepeated counts the same text again, as prompt
// assembly does with a conversation's earlier rounds: served by the cache.
func BenchmarkCountCL100KRepeated(b *testing.B) { benchmarkCount(b, tokens.Default()) }
