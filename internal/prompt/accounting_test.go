package prompt_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ragchat/ragchat/internal/prompt"
	"github.com/ragchat/ragchat/internal/tokens"
)

// mixedInput is a realistic Chinese/English prompt input: nr rounds and ne
// chunks of a few hundred characters each.
func mixedInput(nr, ne int) prompt.Input {
	in := prompt.Input{
		Question:       "那银行卡退款呢？How long does a card refund take?",
		Summary:        "用户正在询问退款到账时间。知识库资料表明原路退回需要 1 到 5 个工作日。",
		SummaryVersion: 3,
		Budget:         prompt.Budget{Total: 6000, History: 1500, MaxRounds: 5},
	}
	for i := range ne {
		in.Evidence = append(in.Evidence, prompt.Evidence{
			ChunkID:       chunkID(i + 1),
			DocumentTitle: fmt.Sprintf("退款政策 Refund policy v%d", i+1),
			Content: strings.Repeat(fmt.Sprintf("退款一般在 1 到 5 个工作日内原路退回；信用卡渠道可能需要 7 到 15 个工作日（chunk %d）。", i+1), 3) +
				"\nCard refunds: 7–15 business days; holidays extend the period.",
			Score: 1 - float64(i)/10,
		})
	}
	for i := range nr {
		in.Rounds = append(in.Rounds, prompt.Round{
			UserSeq: int64(2*i + 1), AssistantSeq: int64(2*i + 2),
			User:      fmt.Sprintf("第 %d 个问题：退款多久到账？", i+1),
			Assistant: fmt.Sprintf("退款一般在 1 到 5 个工作日内原路退回 [C1]。Answer %d.", i+1),
		})
	}
	return in
}

// TestTokenAccountingMatchesWholeCount checks, for real tokenizers, that
// Manifest.Tokens.Total never undercounts System+User counted whole, and
// overcounts by at most one token per piece boundary.
func TestTokenAccountingMatchesWholeCount(t *testing.T) {
	counters := []tokens.Counter{tokens.Default(), tokens.ForModel("gpt-4o"), tokens.Estimator{}}
	budgets := []prompt.Budget{
		{Total: 100000, History: 100000, MaxRounds: 5},
		{Total: 2000, History: 300, MaxRounds: 3},
		{Total: 10},
	}
	for _, c := range counters {
		for _, b := range budgets {
			t.Run(fmt.Sprintf("%s/%d", c.Name(), b.Total), func(t *testing.T) {
				in := mixedInput(5, 8)
				in.Budget, in.Counter = b, c
				r := prompt.Assemble(in)
				tok := r.Manifest.Tokens
				whole := c.Count(r.System) + c.Count(r.User)
				// Pieces: the rules, three sections' open and close
				// tags, the question, each block, each line.
				pieces := 1 + 6 + 1 + len(r.Evidence) + 2*len(r.Rounds)
				if r.SummaryIncluded {
					pieces++
				}
				assert.GreaterOrEqual(t, tok.Total, whole, "never undercounts")
				assert.LessOrEqual(t, tok.Total, whole+pieces, "overcounts by at most one per piece")
				assert.Equal(t, tok.System+tok.Question+tok.Evidence+tok.History+tok.Summary, tok.Total)
				assert.Equal(t, c.Name(), r.Manifest.Tokenizer)
				if b.Total >= 1000 {
					assert.LessOrEqual(t, tok.Total, b.Total)
					assert.NotEmpty(t, r.Evidence)
				}
				t.Logf("total %d, whole %d", tok.Total, whole)
			})
		}
	}
}

// TestCostIndependentOfConversationLength checks that Assemble counts the
// same texts for a 1000-round conversation as for its last MaxRounds+1
// rounds.
func TestCostIndependentOfConversationLength(t *testing.T) {
	calls := func(n int) int64 {
		var c atomic.Int64
		in := mixedInput(n, 8)
		in.Budget = prompt.Budget{Total: 1 << 20, MaxRounds: 3}
		in.Counter = runeCounter{calls: &c}
		prompt.Assemble(in) // warm the overhead cache
		c.Store(0)
		r := prompt.Assemble(in)
		assert.Len(t, r.Rounds, 3)
		return c.Load()
	}
	assert.Equal(t, calls(4), calls(1000))
}

func benchmarkAssemble(b *testing.B, c tokens.Counter) {
	in := mixedInput(5, 8)
	in.Counter = c
	in.Budget = prompt.Budget{Total: 8000, History: 2000, MaxRounds: 5}
	r := prompt.Assemble(in)
	if len(r.Evidence) != 8 || len(r.Rounds) != 5 {
		b.Fatalf("got %d chunks, %d rounds", len(r.Evidence), len(r.Rounds))
	}
	b.ReportAllocs()
	for b.Loop() {
		prompt.Assemble(in)
	}
}

// BenchmarkAssemble assembles 5 rounds and 8 chunks.
func BenchmarkAssemble(b *testing.B) {
	b.Run("estimator", func(b *testing.B) { benchmarkAssemble(b, tokens.Estimator{}) })
	b.Run("cl100k", func(b *testing.B) { benchmarkAssemble(b, tokens.Default()) })
}
