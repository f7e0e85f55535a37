package chunker

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cancellingCounter cancels its context at its stop-th count and counts
// on.
type cancellingCounter struct {
	cancel context.CancelFunc
	stop   int
	calls  int
}

// Count implements Counter.
func (c *cancellingCounter) Count(s string) int {
	c.calls++
	if c.calls == c.stop {
		c.cancel()
	}
	return WordCounter{}.Count(s)
}

// TestSplitStopsWhenCancelled checks that Split counts nothing once its
// context is done and returns the context's error, on each shape of
// large text, and that it leaves no goroutine behind (the unit and cut
// readers it pulls from are stopped). It does not run in parallel, so
// that the goroutine count is its own.
func TestSplitStopsWhenCancelled(t *testing.T) {
	const size = 2 << 20
	baseline := runtime.NumGoroutine()
	for _, d := range linearDocs {
		doc := d.doc(size)
		t.Run(d.name, func(t *testing.T) {
			t.Run("done before", func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				c := &countingCounter{inner: WordCounter{}}
				chunks, err := Split(ctx, doc, Options{Counter: c})
				require.ErrorIs(t, err, context.Canceled)
				assert.Nil(t, chunks)
				assert.Zero(t, c.calls)
			})
			t.Run("deadline passed", func(t *testing.T) {
				ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
				defer cancel()
				_, err := Split(ctx, doc, Options{Counter: WordCounter{}})
				require.ErrorIs(t, err, context.DeadlineExceeded)
			})
			for _, stop := range []int{1, 2, 5, 50} {
				ctx, cancel := context.WithCancel(t.Context())
				c := &cancellingCounter{cancel: cancel, stop: stop}
				chunks, err := Split(ctx, doc, Options{MaxTokens: 64, Counter: c})
				cancel()
				if c.calls < stop {
					// The text took fewer counts than stop: no cancellation.
					require.NoError(t, err)
					continue
				}
				require.ErrorIs(t, err, context.Canceled, "cancelled at count %d", stop)
				assert.Nil(t, chunks)
				assert.Equal(t, stop, c.calls, "counts after the cancellation at count %d", stop)
			}
		})
	}
	// Polled here: require.Eventually polls from goroutines of its own.
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > baseline && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), baseline, "goroutines left behind")
}

// wobblyCounter counts more or fewer tokens as a text grows, unlike any
// tokenizer: WordCounter plus 0, 1 or 2 by the text's length.
type wobblyCounter struct{}

// Count implements Counter.
func (wobblyCounter) Count(s string) int { return WordCounter{}.Count(s) + len(s)/7%3 }

// TestSplitWithANonMonotonicCounter checks that the searches, which assume
// that a longer text never counts fewer tokens, keep every promise of
// Split with a counter that breaks the assumption: every chunk is counted
// and within MaxTokens, and no text is lost or repeated.
func TestSplitWithANonMonotonicCounter(t *testing.T) {
	t.Parallel()
	docs := map[string]string{
		"mixed":       mixedDocument(6_000),
		"headingless": strings.ReplaceAll(mixedDocument(3_000), "#", "＃"),
		"one line":    strings.Repeat("无标点无换行的中文文本", 200),
		"words":       repeatTo("lorem ipsum dolor sit amet ", 4_000),
	}
	for name, doc := range docs {
		for _, cfg := range []Options{
			{MaxTokens: 12, OverlapTokens: 3},
			{MaxTokens: 40, OverlapTokens: NoOverlap},
			{MaxTokens: 64, OverlapTokens: 16},
			{},
		} {
			cfg.Counter = wobblyCounter{}
			t.Run(name, func(t *testing.T) { checkInvariants(t, doc, cfg) })
		}
	}
}
