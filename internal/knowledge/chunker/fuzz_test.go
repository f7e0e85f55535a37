package chunker

import (
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/tokens"
)

// nonSpace returns s without white space.
func nonSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// isSubsequence reports whether the runes of sub appear in s in order.
func isSubsequence(sub, s string) bool {
	rs := []rune(s)
	i := 0
	for _, r := range sub {
		for i < len(rs) && rs[i] != r {
			i++
		}
		if i == len(rs) {
			return false
		}
		i++
	}
	return true
}

// checkInvariants splits text and checks what Split promises for every
// input:
//   - ordinals count from 0; Tokens is the count of Content and at most
//     MaxTokens; Content starts with the Heading line when there is one;
//     no chunk body is blank;
//   - the overlap of a chunk is a suffix of the previous chunk of the same
//     section and counts at most OverlapTokens;
//   - the text each chunk adds after its overlap, concatenated, is the
//     document's text: equal to it up to white space when the document has
//     no headings, and a subsequence of it otherwise (heading lines move
//     into the heading prefixes);
//   - splitting again gives the same chunks.
func checkInvariants(t *testing.T, text string, opts Options) {
	t.Helper()
	pieces, err := split(t.Context(), text, opts)
	require.NoError(t, err)
	resolved, err := opts.resolve()
	require.NoError(t, err)
	var fresh strings.Builder
	for i, p := range pieces {
		require.Equal(t, i, p.Ordinal)
		require.Equal(t, resolved.Counter.Count(p.Content), p.Tokens)
		require.LessOrEqual(t, p.Tokens, resolved.MaxTokens, "chunk %d: %q", i, p.Content)
		if p.Heading != "" {
			require.NotContains(t, p.Heading, "\n")
			require.True(t, strings.HasPrefix(p.Content, p.Heading+"\n"))
			require.Equal(t, len(p.Heading)+1, p.bodyStart)
		} else {
			require.Zero(t, p.bodyStart)
		}
		require.NotEmpty(t, strings.TrimSpace(p.Content[p.bodyStart:]), "chunk %d has an empty body", i)
		require.NotEmpty(t, strings.TrimSpace(p.Content[p.freshStart:]), "chunk %d adds nothing", i)
		if p.freshStart > p.bodyStart {
			require.Positive(t, i)
			prev := pieces[i-1]
			require.Equal(t, prev.section, p.section, "overlap across a heading")
			overlap := strings.TrimSpace(p.Content[p.bodyStart:p.freshStart])
			require.True(t, strings.HasSuffix(prev.Content, overlap), "overlap %q is not the tail of %q", overlap, prev.Content)
			require.LessOrEqual(t, resolved.Counter.Count(overlap), resolved.OverlapTokens)
		}
		fresh.WriteString(p.Content[p.freshStart:])
	}
	got, want := nonSpace(fresh.String()), nonSpace(Normalize(text))
	if strings.Contains(want, "#") {
		require.True(t, isSubsequence(got, want), "chunk text is not taken from the document in order")
	} else {
		require.Equal(t, want, got, "chunks lose or repeat text")
	}
	again, err := split(t.Context(), text, opts)
	require.NoError(t, err)
	require.Equal(t, pieces, again, "split is not deterministic")
}

// checkReference checks that split gives the chunks of the chunker before
// it was made linear (refSplit), which holds for counters that never
// count fewer tokens in a longer text, as every test counter.
func checkReference(t *testing.T, text string, opts Options) {
	t.Helper()
	pieces, err := split(t.Context(), text, opts)
	require.NoError(t, err)
	reference, err := refSplit(text, opts)
	require.NoError(t, err)
	require.Equal(t, reference, pieces, "split differs from the reference")
}

func TestSplitInvariants(t *testing.T) {
	cl100k, err := tokens.Encoding(tokens.CL100KBase)
	require.NoError(t, err)
	docs := map[string]string{
		"mixed":       mixedDocument(20_000),
		"headingless": strings.ReplaceAll(mixedDocument(8_000), "#", "＃"),
		"crlf":        strings.ReplaceAll(mixedDocument(4_000), "\n", "\r\n"),
		"one line":    strings.Repeat("无标点无换行的中文文本", 500),
	}
	for name, doc := range docs {
		for _, cfg := range []Options{
			{MaxTokens: 8, OverlapTokens: 3},
			{MaxTokens: 30, OverlapTokens: NoOverlap},
			{MaxTokens: 64, OverlapTokens: 16},
			{MaxTokens: 300},
			{},
		} {
			for _, counter := range []Counter{WordCounter{}, RuneCounter{}} {
				cfg.Counter = counter
				t.Run(name, func(t *testing.T) {
					checkInvariants(t, doc, cfg)
					checkReference(t, doc, cfg)
				})
			}
			// The server's tokenizer: BPE counts do not always grow with
			// the text, so the chunks may differ from the reference's, but
			// every promise holds.
			cfg.Counter = cl100k
			t.Run(name+"/cl100k", func(t *testing.T) { checkInvariants(t, doc, cfg) })
		}
	}
}

func FuzzSplit(f *testing.F) {
	seeds := []string{
		"",
		"单个上传文件最大为20MB。超过限制时返回 HTTP 413。",
		"The limit is 20.5MB, e.g. for images. Dr. Smith agreed.\nwrapped line. Next!",
		"# 标题\n\n## 子标题\n正文。\n```\n# 代码\n```\n| a | b |\n|---|---|\n| 1 | 2 |\n- 项目一\n  续行\n",
		"```go\nfunc main() {\n\tprintln(\"hi\")\n}\n",
		strings.Repeat("长", 300),
		"a\r\nb\rc\x00d\uFEFF\u2028e\xff",
		mixedDocument(2_000),
	}
	for i, s := range seeds {
		f.Add(s, uint8(10+i*7), uint8(i*3))
	}
	f.Fuzz(func(t *testing.T, text string, maxTokens, overlap uint8) {
		opts := Options{MaxTokens: 2 + int(maxTokens)%120, Counter: WordCounter{}}
		opts.OverlapTokens = int(overlap) % opts.MaxTokens
		if opts.OverlapTokens == 0 {
			opts.OverlapTokens = NoOverlap
		}
		checkInvariants(t, text, opts)
		checkReference(t, text, opts)
	})
}
