package prompt_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/prompt"
	"github.com/ragchat/ragchat/internal/tokens"
)

// TestAssembleBudgetRatios checks the split of the usable window between
// evidence and history by the default ratios, with the conservative
// estimator (docs/ENGINE.md, "The budget split").
func TestAssembleBudgetRatios(t *testing.T) {
	ratios := domain.DefaultBudgetRatios()
	tests := []struct {
		name           string
		rounds, chunks int
		total          int
		question       string // "" keeps mixedInput's
		check          func(t *testing.T, total int, r prompt.Result)
	}{
		{
			name: "evidence stops at its cap, history keeps its room", rounds: 5, chunks: 40, total: 6000,
			check: func(t *testing.T, total int, r prompt.Result) {
				m := r.Manifest
				assert.LessOrEqual(t, m.Tokens.Evidence, int(float64(total)*ratios.EvidenceCap)+20, "cap (plus the section's frame)")
				assert.Positive(t, m.DroppedChunks, "evidence was cut at its cap")
				assert.Equal(t, 5, m.HistoryRounds, "history was not starved")
				assert.Equal(t, int(float64(total)*ratios.EvidenceCap), m.Limits.Evidence)
			},
		},
		{
			name: "without history, its share flows to evidence", rounds: 0, chunks: 40, total: 6000,
			check: func(t *testing.T, total int, r prompt.Result) {
				m := r.Manifest
				assert.Greater(t, m.Tokens.Evidence, int(float64(total)*ratios.Evidence), "more than evidence's own share")
				assert.Equal(t, int(float64(total)*ratios.EvidenceCap), m.Limits.Evidence)
			},
		},
		{
			name: "a small window carries the compact rules, and evidence gets what they save", rounds: 5, chunks: 40, total: 1500,
			check: func(t *testing.T, total int, r prompt.Result) {
				m := r.Manifest
				// The full Chinese rules (883 estimated tokens) would
				// overrun the system share of 225 so far that evidence
				// would be held at its floor; the compact ones (262) leave
				// evidence well above it.
				assert.Equal(t, prompt.RulesCompact, m.Rules)
				assert.Equal(t, prompt.Rules(prompt.Chinese, prompt.RulesCompact), r.System)
				assert.Equal(t, tokens.Estimator{}.Count(r.System), m.Tokens.System)
				assert.Greater(t, m.Limits.Evidence, int(float64(total)*ratios.EvidenceFloor))
				assert.GreaterOrEqual(t, len(r.Evidence), 2)
				assert.Positive(t, m.HistoryRounds)
			},
		},
		{
			name: "a question beyond its share costs evidence, down to its floor", rounds: 5, chunks: 40, total: 1500,
			question: strings.Repeat("退款多久到账？银行卡和信用卡有什么区别？", 30),
			check: func(t *testing.T, total int, r prompt.Result) {
				m := r.Manifest
				// A question of about 900 tokens overruns the input share
				// of 300 so far that evidence's own 450 would shrink to
				// nothing; the floor keeps 225, one chunk.
				assert.Equal(t, int(float64(total)*ratios.EvidenceFloor), m.Limits.Evidence)
				assert.Len(t, r.Evidence, 1, "history cannot starve evidence")
			},
		},
		{
			name: "a large window carries the full rules", rounds: 5, chunks: 40, total: 6000,
			check: func(t *testing.T, total int, r prompt.Result) {
				assert.Equal(t, prompt.RulesFull, r.Manifest.Rules)
				assert.Equal(t, prompt.SystemRules(prompt.Chinese), r.System)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := mixedInput(tt.rounds, tt.chunks)
			if tt.question != "" {
				in.Question = tt.question
			}
			in.Counter = tokens.Estimator{}
			in.Budget = prompt.Budget{Total: tt.total, Ratios: ratios, MaxRounds: 5}
			r := prompt.Assemble(in)
			m := r.Manifest
			require.LessOrEqual(t, m.Tokens.Total, tt.total, "within the usable window")
			body := in.Counter.Count(r.System) + in.Counter.Count(r.User)
			assert.LessOrEqual(t, body, tt.total, "the whole texts too")
			assert.Equal(t, tt.total, m.Limits.Total)
			tt.check(t, tt.total, r)
		})
	}
}
