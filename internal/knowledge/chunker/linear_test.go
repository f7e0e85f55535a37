package chunker

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/tokens"
)

// countingCounter counts the texts a Split counts and their bytes.
type countingCounter struct {
	inner        Counter
	calls, bytes int
}

// Count implements Counter.
func (c *countingCounter) Count(s string) int {
	c.calls++
	c.bytes += len(s)
	return c.inner.Count(s)
}

// repeatTo repeats unit to exactly n bytes, cut back to a rune boundary.
func repeatTo(unit string, n int) string {
	s := strings.Repeat(unit, n/len(unit)+1)
	return s[:runeStartAtOrBefore(s, n)]
}

// linearDocs are the shapes of text the chunker must cut in linear time:
// the single paragraph and single-newline text (extracted PDF
// text), Chinese without punctuation, and the shapes that take the other
// paths (sentences, one line per sentence, code, one long word, many
// sections under one long heading, runs of blanks that a counter may count
// as nothing, blank-line paragraphs).
var linearDocs = []struct {
	name string
	doc  func(n int) string
}{
	{"one paragraph of words", func(n int) string {
		return repeatTo("lorem ipsum dolor sit amet consectetur adipiscing elit ", n)
	}},
	{"one paragraph of sentences", func(n int) string {
		return repeatTo("The upload limit applies to every file a member sends. ", n)
	}},
	{"single newlines, wrapped", func(n int) string {
		return repeatTo("the maximum size of a single uploaded file is twenty megabytes\n", n)
	}},
	{"single newlines, a sentence a line", func(n int) string {
		return repeatTo("Files above the limit are refused\n", n)
	}},
	{"chinese without punctuation", func(n int) string {
		return repeatTo("这是一段没有任何标点符号的超长文本", n)
	}},
	{"chinese sentences", func(n int) string {
		return repeatTo("单个上传文件最大为二十兆字节，超过限制时返回错误。", n)
	}},
	{"one long word", func(n int) string { return repeatTo("x", n) }},
	{"code", func(n int) string {
		return "```go\n" + repeatTo("    total += item.Size // add the size\n", n) + "\n```"
	}},
	{"sections under a long heading", func(n int) string {
		return "# " + repeatTo("一个很长的标题 ", n/4) + "\n\n" + repeatTo("## 小节\n\n短文。\n\n", n)
	}},
	{"runs of blanks", func(n int) string {
		return repeatTo("word"+strings.Repeat(" ", 300)+"词。"+strings.Repeat("\t", 100), n)
	}},
	{"blank lines", func(n int) string {
		return repeatTo("The upload limit applies to every file a member sends.\n\n", n)
	}},
}

// TestSplitIsLinear guards the chunker's work by counts, not time: for
// every shape of text, doubling the text at most about doubles the texts
// counted and their bytes, and the bytes counted stay within a small
// multiple of the text. The chunker before e479ef3's successor searched
// the rest of a paragraph for every cut and recounted it for every unit
// it added to a chunk, so its bytes counted grew with the square of a
// paragraph's length.
func TestSplitIsLinear(t *testing.T) {
	t.Parallel()
	const n = 64 << 10
	configs := []struct {
		name string
		opts Options
	}{
		{"max=400", Options{}},
		{"max=64,overlap=16", Options{MaxTokens: 64, OverlapTokens: 16}},
	}
	cl100k, err := tokens.Encoding(tokens.CL100KBase)
	require.NoError(t, err)
	counters := []struct {
		name  string
		inner Counter
	}{
		{"words", WordCounter{}},
		{"estimate", tokens.Estimator{}},
		{"cl100k", cl100k},
	}
	for _, d := range linearDocs {
		for _, cfg := range configs {
			for _, ctr := range counters {
				t.Run(fmt.Sprintf("%s/%s/%s", d.name, cfg.name, ctr.name), func(t *testing.T) {
					t.Parallel()
					work := func(size int) *countingCounter {
						c := &countingCounter{inner: ctr.inner}
						opts := cfg.opts
						opts.Counter = c
						_, err := split(t.Context(), d.doc(size), opts)
						require.NoError(t, err)
						return c
					}
					one, two := work(n), work(2*n)
					t.Logf("n=%d: %d counts, %d bytes (%.1f per byte); 2n: %d counts, %d bytes",
						n, one.calls, one.bytes, float64(one.bytes)/n, two.calls, two.bytes)
					assert.LessOrEqual(t, float64(two.bytes), 2.2*float64(one.bytes), "bytes counted grow faster than the text")
					assert.LessOrEqual(t, float64(two.calls), 2.2*float64(one.calls), "counts grow faster than the text")
					assert.LessOrEqual(t, one.bytes, maxBytesPerByte*n, "bytes counted per byte of text")
				})
			}
		}
	}
}

// maxBytesPerByte bounds the bytes Split counts per byte of text.
const maxBytesPerByte = 16

// TestSplitAllocatesLinearly checks by the bytes allocated that doubling
// the text at most about doubles the memory Split takes, and that it stays
// within a small multiple of the text. It does not run in parallel, so
// that the allocation counts are Split's.
func TestSplitAllocatesLinearly(t *testing.T) {
	const n = 64 << 10
	for _, d := range linearDocs {
		t.Run(d.name, func(t *testing.T) {
			allocated := func(size int) uint64 {
				doc := d.doc(size)
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				_, err := split(context.Background(), doc, Options{MaxTokens: 64, OverlapTokens: 16, Counter: WordCounter{}})
				runtime.ReadMemStats(&after)
				require.NoError(t, err)
				return after.TotalAlloc - before.TotalAlloc
			}
			one, two := allocated(n), allocated(2*n)
			t.Logf("n=%d: %d bytes allocated (%.1f per byte); 2n: %d", n, one, float64(one)/n, two)
			// Appending to the chunk slice doubles its capacity now and then,
			// so allocations grow in steps; a square would quadruple them.
			assert.LessOrEqual(t, float64(two), 2.6*float64(one), "allocations grow faster than the text")
			assert.LessOrEqual(t, one, uint64(maxAllocPerByte*n), "bytes allocated per byte of text")
		})
	}
}

// maxAllocPerByte bounds the bytes Split allocates per byte of text.
const maxAllocPerByte = 40
