package chunker_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/knowledge/chunker"
)

// sentenceDoc builds n distinct sentences of varying length, Chinese or
// English, joined the way the language joins them.
func sentenceDoc(n int, english bool) (sentences []string, sep string) {
	seed := uint32(7)
	next := func() int { seed = seed*1664525 + 1013904223; return int(seed >> 24) }
	for i := range n {
		if english {
			words := strings.Repeat("word ", 1+next()%12)
			sentences = append(sentences, fmt.Sprintf("Sentence %d has %sin it.", i, words))
		} else {
			sentences = append(sentences, fmt.Sprintf("第%d句%s。", i, strings.Repeat("文本内容", 1+next()%6)))
		}
	}
	if english {
		return sentences, " "
	}
	return sentences, ""
}

// sentenceRange returns the indexes [from, to) of the sentences that make
// up body, which must be consecutive whole sentences.
func sentenceRange(t *testing.T, body string, sentences []string, sep string) (int, int) {
	t.Helper()
	from := -1
	for i, s := range sentences {
		if strings.HasPrefix(body, s) {
			from = i
			break
		}
	}
	require.GreaterOrEqual(t, from, 0, "chunk does not start with a whole sentence: %q", body)
	to := from
	for rest := body; rest != ""; to++ {
		require.Less(t, to, len(sentences), "chunk runs past the text: %q", body)
		require.True(t, strings.HasPrefix(rest, sentences[to]), "chunk is not whole consecutive sentences: %q", rest)
		rest = strings.TrimPrefix(strings.TrimPrefix(rest, sentences[to]), sep)
	}
	return from, to
}

// TestSplitOverlapIsTailSentences checks the packing and overlap rules on
// text of whole sentences: every chunk is consecutive whole sentences; it
// takes as many as fit; the next chunk starts with the longest tail of it
// that stays within OverlapTokens and leaves room for a new sentence; and
// no sentence is skipped.
func TestSplitOverlapIsTailSentences(t *testing.T) {
	counter := chunker.WordCounter{}
	for _, english := range []bool{false, true} {
		for _, cfg := range []struct{ max, overlap int }{{40, 10}, {60, 25}, {80, 20}, {120, 60}, {50, chunker.NoOverlap}} {
			t.Run(fmt.Sprintf("english=%v/max=%d/overlap=%d", english, cfg.max, cfg.overlap), func(t *testing.T) {
				sentences, sep := sentenceDoc(80, english)
				const heading = "退款说明"
				chunks, err := chunker.Split(t.Context(), "# "+heading+"\n\n"+strings.Join(sentences, sep),
					chunker.Options{MaxTokens: cfg.max, OverlapTokens: cfg.overlap, Counter: counter})
				require.NoError(t, err)
				require.Greater(t, len(chunks), 3)
				join := func(from, to int) string { return strings.Join(sentences[from:to], sep) }
				fits := func(from, to int) bool { return counter.Count(heading+"\n"+join(from, to)) <= cfg.max }
				prevFrom, prevTo, overlapped := 0, 0, 0
				for i, c := range chunks {
					require.Equal(t, heading, c.Heading)
					require.LessOrEqual(t, c.Tokens, cfg.max)
					from, to := sentenceRange(t, strings.TrimPrefix(c.Content, heading+"\n"), sentences, sep)
					if to < len(sentences) {
						require.False(t, fits(from, to+1), "chunk %d could have taken one more sentence", i)
					}
					if i == 0 {
						require.Equal(t, 0, from)
					} else {
						require.Greater(t, to, prevTo, "chunk %d adds nothing new", i)
						require.LessOrEqual(t, from, prevTo, "chunk %d skips a sentence", i)
						require.GreaterOrEqual(t, from, prevFrom)
						overlap := join(from, prevTo)
						if cfg.overlap == chunker.NoOverlap {
							require.Equal(t, prevTo, from, "chunk %d overlaps with overlap off", i)
						} else {
							require.LessOrEqual(t, counter.Count(overlap), cfg.overlap)
							if from < prevTo {
								overlapped++
							}
							// The overlap is maximal: one more tail sentence
							// would exceed the overlap or leave no room.
							if j := from - 1; j >= prevFrom {
								require.True(t, counter.Count(join(j, prevTo)) > cfg.overlap || !fits(j, prevTo+1),
									"chunk %d could have repeated sentence %d", i, j)
							}
						}
					}
					prevFrom, prevTo = from, to
				}
				require.Equal(t, len(sentences), prevTo, "the last sentences are missing")
				if cfg.overlap != chunker.NoOverlap {
					require.Positive(t, overlapped, "no chunk overlaps")
				}
			})
		}
	}
}
