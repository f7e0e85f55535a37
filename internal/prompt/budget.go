package prompt

import "github.com/ragchat/ragchat/internal/domain"

// split is the budget split of one prompt (docs/ENGINE.md, "The budget
// split"): the shares of the usable window by the tenant's ratios, after
// the unused shares flowed in priority order rules → input → evidence →
// history.
type split struct {
	system, input int // the ratios' shares of rules and question
	evidence      int // what evidence may use
	// history is what the window holds beyond the rules, the question and
	// the evidence limit; the conversation finally gets everything
	// evidence left unused too (historyAfter).
	history int
}

// splitBudget computes the section limits for a usable window of b.Total
// tokens when the rules and the question (with their frames) cost fixed
// tokens together and the whole conversation would cost demand.
//
// Rules and question are never cut: what they leave of their shares flows
// to evidence, and what they need beyond them is taken from evidence
// first. What the conversation does not need of its share also flows to
// evidence. Evidence is then held between its floor and its cap, and never
// beyond what the window has left; the conversation gets the rest
// (historyAfter), so whatever evidence does not use flows on to it.
// Without ratios there is no split: evidence may use everything left and
// the conversation what evidence leaves.
func splitBudget(b Budget, system, question, demand int) split {
	rest := max(0, b.Total-system-question)
	r := b.Ratios
	if r == (domain.BudgetRatios{}) {
		return split{system: system, input: question, evidence: rest}
	}
	u := float64(max(0, b.Total))
	s := split{
		system: int(u * r.System),
		input:  int(u * r.Input),
	}
	evShare := int(u * r.Evidence)
	histShare := int(u * r.History)
	unassigned := b.Total - s.system - s.input - evShare - histShare
	carry := (s.system - system) + (s.input - question) + max(0, unassigned)
	ev := evShare + carry + max(0, histShare-demand)
	ev = max(ev, int(u*r.EvidenceFloor))
	if c := int(u * r.EvidenceCap); r.EvidenceCap > 0 && ev > c {
		ev = c
	}
	s.evidence = min(max(0, ev), rest)
	s.history = max(0, rest-s.evidence)
	return s
}

// historyAfter is the conversation's limit once evidence used used
// tokens: everything the window has left, within the optional cap.
func historyAfter(b Budget, rest, used int) int {
	h := max(0, rest-used)
	if b.History > 0 {
		h = min(h, b.History)
	}
	return h
}
