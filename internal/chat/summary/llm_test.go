package summary

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/tokens"
)

// TestSummaryChunks: whole rounds, at most chunkItems per chunk and
// the token bound, with an oversized round alone in its chunk; a previous
// summary that does not fit with the rounds makes a merge necessary.
func TestSummaryChunks(t *testing.T) {
	counter := tokens.Default()
	item := func(n int) llm.SummaryItem {
		return llm.SummaryItem{Question: fmt.Sprintf("Ticket T-%d: %s", n, strings.Repeat("word ", 30)), Outcome: "answered"}
	}
	cost := counter.Count(llm.SummaryLine(item(1)))
	many := func(n int) []llm.SummaryItem {
		out := make([]llm.SummaryItem, n)
		for i := range out {
			out[i] = item(i)
		}
		return out
	}
	sizes := func(chunks [][]llm.SummaryItem) []int {
		var out []int
		for _, c := range chunks {
			out = append(out, len(c))
		}
		return out
	}
	tests := []struct {
		name  string
		base  string
		items []llm.SummaryItem
		limit int
		want  []int
		one   bool
	}{
		{"fits one call", "", many(3), 10 * cost, []int{3}, true},
		{"previous summary counts", strings.Repeat("摘要", 8*cost), many(3), 10 * cost, []int{3}, false},
		{"twenty rounds at most", "", many(45), 1000 * cost, []int{20, 20, 5}, false},
		{"token bound", "", many(5), 2*cost + cost/2, []int{2, 2, 1}, false},
		{"oversized round alone", "", many(3), cost / 2, []int{1, 1, 1}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			chunks, one := chunk(tc.base, tc.items, counter, tc.limit)
			if got := sizes(chunks); fmt.Sprint(got) != fmt.Sprint(tc.want) || one != tc.one {
				t.Errorf("chunk sizes = %v (one call %v), want %v (%v)", got, one, tc.want, tc.one)
			}
		})
	}
}
