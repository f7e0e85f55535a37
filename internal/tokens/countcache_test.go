package tokens_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/tokens"
)

// TestCountCacheCountsLikeTiktoken checks that cached counts equal
// tiktoken's, that a long text is tokenised once however often it is
// counted, and that short texts are not cached.
func TestCountCacheCountsLikeTiktoken(t *testing.T) {
	for _, enc := range []string{tokens.CL100KBase, tokens.O200KBase} {
		base, err := tokens.Encoding(enc)
		require.NoError(t, err)
		c := tokens.WithCacheSize(base, 64)
		exact := tokens.Uncached(base)
		long := strings.Repeat("Uploads are limited to 20 MB per file; 上传文件最大 20 MB。", 10)
		texts := []struct {
			name   string
			text   string
			cached bool
		}{
			{"short", "hello world", false},
			{"just under the threshold", strings.Repeat("a", tokens.MinCachedLen-1), false},
			{"at the threshold", strings.Repeat("a", tokens.MinCachedLen), true},
			{"long mixed", long, true},
			{"long, one rune changed", long[:len(long)-3] + "!", true},
			{"special tokens as text", strings.Repeat("<|endoftext|> ", 30), true},
		}
		for _, tt := range texts {
			t.Run(enc+"/"+tt.name, func(t *testing.T) {
				want := exact.Count(tt.text)
				before, cachedBefore := tokens.Encodes(c), tokens.CachedCounts(c)
				for range 3 {
					require.Equal(t, want, c.Count(tt.text))
				}
				if tt.cached {
					require.Equal(t, before+1, tokens.Encodes(c), "tokenised once")
					require.Equal(t, cachedBefore+1, tokens.CachedCounts(c))
				} else {
					require.Equal(t, before+3, tokens.Encodes(c), "short texts are counted every time")
					require.Equal(t, cachedBefore, tokens.CachedCounts(c))
				}
			})
		}
	}
}

// TestCountCacheIsBounded checks that the cache keeps at most its size of
// counts, evicting the least recently used, and stays exact throughout.
func TestCountCacheIsBounded(t *testing.T) {
	base, err := tokens.Encoding(tokens.CL100KBase)
	require.NoError(t, err)
	c := tokens.WithCacheSize(base, 8)
	exact := tokens.Uncached(base)
	text := func(i int) string {
		return fmt.Sprintf("chunk %d: ", i) + strings.Repeat(fmt.Sprintf("word%d ", i), 60)
	}
	for round := range 2 {
		for i := range 20 {
			require.Equal(t, exact.Count(text(i)), c.Count(text(i)), "round %d text %d", round, i)
			require.LessOrEqual(t, tokens.CachedCounts(c), 8)
		}
	}
	require.EqualValues(t, 40, tokens.Encodes(c), "each text was evicted before it came again")
	for range 3 {
		c.Count(text(19))
	}
	require.EqualValues(t, 40, tokens.Encodes(c), "the most recent text stays cached")
}
