package prompt

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ragchat/ragchat/internal/domain"
)

// TestSplitBudget checks the section limits of docs/ENGINE.md, "The budget
// split", including its worked examples, for the default ratios (system
// 0.15, evidence 0.30, history 0.35, input 0.20, evidence floor 0.15 and
// cap 0.60).
func TestSplitBudget(t *testing.T) {
	ratios := domain.DefaultBudgetRatios()
	tests := []struct {
		name                     string
		total, rules, q, demand  int
		ratios                   domain.BudgetRatios
		wantEvidence, wantSystem int
		wantInput                int
	}{
		{
			// The first worked example: rules 395 with the framing's 16
			// and question 44 leave 489 and 1,156 of their shares,
			// history needs 1,500 of its 2,100: 1,800 + 1,645 + 600 =
			// 4,045, capped at 3,600.
			name: "worked example: unused shares flow to evidence, up to its cap", total: 6000, rules: 395 + 16, q: 44, demand: 1500,
			ratios: ratios, wantEvidence: 3600, wantSystem: 900, wantInput: 1200,
		},
		{
			name: "a long history keeps its share", total: 6000, rules: 395 + 16, q: 44, demand: 5000,
			ratios: ratios, wantEvidence: 1800 + 1645, wantSystem: 900, wantInput: 1200,
		},
		{
			// The second worked example, a 3,000-token window: usable
			// 2,250; the compact rules 262 with the framing's 16 and the
			// question 77 leave (337 − 278) + (450 − 77) + 1 unassigned
			// = 433 to evidence's 675.
			name: "worked example: small window, compact rules", total: 2250, rules: 262 + 16, q: 77, demand: 1500,
			ratios: ratios, wantEvidence: 1108, wantSystem: 337, wantInput: 450,
		},
		{
			// The third worked example, Ollama's 2,048: usable 1,536;
			// (230 − 278) + (307 − 77) + 2 unassigned = 184 flow to
			// evidence's 460.
			name: "worked example: a 2,048-token window", total: 1536, rules: 262 + 16, q: 77, demand: 1500,
			ratios: ratios, wantEvidence: 644, wantSystem: 230, wantInput: 307,
		},
		{
			// The full Chinese rules (883) on the same window would take
			// (230 − 899) + 232 = −437 from evidence: held at its floor.
			name: "rules far beyond their share leave evidence its floor", total: 1536, rules: 883 + 16, q: 77, demand: 1500,
			ratios: ratios, wantEvidence: 230, wantSystem: 230, wantInput: 307,
		},
		{
			// Rules 1,500 and question 1,100 overrun their shares:
			// (900 − 1,500) + (1,200 − 1,100) = −500 is taken from
			// evidence first (1,800 − 500 = 1,300).
			name: "rules and question beyond their shares are taken from evidence", total: 6000, rules: 1500, q: 1100, demand: 5000,
			ratios: ratios, wantEvidence: 1300, wantSystem: 900, wantInput: 1200,
		},
		{
			// −2,400 would leave evidence nothing; the floor keeps 900.
			name: "evidence keeps its floor", total: 6000, rules: 2500, q: 2000, demand: 5000,
			ratios: ratios, wantEvidence: 900, wantSystem: 900, wantInput: 1200,
		},
		{
			name: "never beyond what the window has left", total: 6000, rules: 3000, q: 2500, demand: 5000,
			ratios: ratios, wantEvidence: 500, wantSystem: 900, wantInput: 1200,
		},
		{
			name: "no ratios: evidence may take everything left", total: 6000, rules: 700, q: 50, demand: 5000,
			wantEvidence: 5250, wantSystem: 700, wantInput: 50,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := splitBudget(Budget{Total: tt.total, Ratios: tt.ratios}, tt.rules, tt.q, tt.demand)
			assert.Equal(t, tt.wantEvidence, s.evidence)
			assert.Equal(t, tt.wantSystem, s.system)
			assert.Equal(t, tt.wantInput, s.input)
			assert.Equal(t, max(0, tt.total-tt.rules-tt.q-tt.wantEvidence), s.history)
		})
	}
}
