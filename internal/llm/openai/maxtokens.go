package openai

import (
	"sort"

	"github.com/ragchat/ragchat/internal/llm"
)

// withinTokens returns the longest prefix of d, cut on a rune boundary,
// with which prev+prefix counts at most limit tokens (llm.EstimateTokens);
// prev itself must fit. A provider that ignores max_tokens is held to it
// this way, streaming (stream.capAnswer) or not (complete).
func withinTokens(prev, d string, limit int) string {
	cuts := make([]int, 0, len(d)+1)
	for i := range d {
		cuts = append(cuts, i)
	}
	cuts = append(cuts, len(d))
	// cuts[0] = 0 always fits: prev does.
	k := sort.Search(len(cuts), func(k int) bool { return llm.EstimateTokens(prev+d[:cuts[k]]) > limit }) - 1
	return d[:cuts[max(k, 0)]]
}
