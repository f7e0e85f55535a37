package prompt

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/domain"
)

// ShortenedAnswerRunes is how much of an old assistant answer a shortened
// one keeps, in code points, before shortenedMark.
const ShortenedAnswerRunes = 80

// Marks of cut assistant answers.
const (
	shortenedMark = " …[shortened]"
	omittedAnswer = "[omitted]"
)

// Answer states of a history round, from least to most cut.
const (
	answerFull = iota
	answerShortened
	answerOmitted
)

// histRound is one round offered to the conversation section, with the
// rendered lines and token costs of its variants.
type histRound struct {
	Round
	idx        int // position in Input.Rounds (chronological)
	userLine   string
	userCost   int
	answerFull string
	fullCost   int
	short      string // "" until needed; see shorten
	shortCost  int
	state      int
	dropped    bool
}

// answerLine returns the assistant line in the round's current state.
func (r *histRound) answerLine() string {
	switch r.state {
	case answerShortened:
		return r.short
	case answerOmitted:
		return assistantPrefix + omittedAnswer
	}
	return r.answerFull
}

// answerState names the state for the manifest.
func (r *histRound) answerState() string {
	switch r.state {
	case answerShortened:
		return domain.AnswerShortened
	case answerOmitted:
		return domain.AnswerOmitted
	}
	return domain.AnswerFull
}

// history is the conversation section being fitted to its limit. Costs
// are kept up to date as rounds are cut, so fitting is linear in the
// number of rounds.
type history struct {
	a           *assembly
	rounds      []*histRound // chronological
	cutOrder    []*histRound // lowest priority first, then oldest
	summaryLine string       // "" when there is no summary
	sumCost     int          // the summary line with its newline
	summaryKept bool
	content     int // tokens of the kept lines, frame excluded
}

// prepareHistory renders and counts the rounds Assemble may carry: the
// MaxRounds rounds of highest priority (the newest among equals), and the
// summary.
func (a *assembly) prepareHistory() *history {
	in, ov := a.in, a.ov
	maxRounds := in.Budget.MaxRounds
	if maxRounds <= 0 {
		maxRounds = DefaultMaxRounds
	}
	h := &history{a: a}
	// Which rounds are offered: the top maxRounds by priority, newest
	// first among equals; only those are ever counted.
	order := make([]int, len(in.Rounds))
	for i := range order {
		order[i] = len(in.Rounds) - 1 - i
	}
	sort.SliceStable(order, func(x, y int) bool { return in.Rounds[order[x]].Priority > in.Rounds[order[y]].Priority })
	if len(order) > maxRounds {
		order = order[:maxRounds]
	}
	sort.Ints(order)
	h.rounds = make([]*histRound, 0, len(order))
	for _, i := range order {
		r := in.Rounds[i]
		hr := &histRound{Round: r, idx: i}
		hr.userLine = userPrefix + neutralize(strings.TrimSpace(r.User))
		hr.userCost = a.c.Count(hr.userLine) + ov.line
		hr.answerFull = assistantPrefix + neutralize(strings.TrimSpace(r.Assistant))
		hr.fullCost = a.c.Count(hr.answerFull) + ov.line
		h.content += hr.userCost + hr.fullCost
		h.rounds = append(h.rounds, hr)
	}
	h.cutOrder = append([]*histRound(nil), h.rounds...)
	sort.SliceStable(h.cutOrder, func(x, y int) bool { return h.cutOrder[x].Priority < h.cutOrder[y].Priority })
	if s := strings.TrimSpace(in.Summary); s != "" {
		h.summaryLine = summaryPrefix + neutralize(s)
		h.sumCost = a.c.Count(h.summaryLine) + ov.line
		h.summaryKept = true
		h.content += h.sumCost
	}
	return h
}

// used returns the section's tokens with its frame (none when empty).
func (h *history) used() int {
	if h.content == 0 {
		return 0
	}
	return h.content + h.a.ov.convOpen + h.a.ov.convClose
}

// demand is what the whole offered conversation costs.
func (h *history) demand() int { return h.used() }

// summaryCost is the summary's tokens when it is kept.
func (h *history) summaryCost() int {
	if h.summaryKept {
		return h.sumCost
	}
	return 0
}

// kept returns the rounds still in, oldest first.
func (h *history) kept() []*histRound {
	out := make([]*histRound, 0, len(h.rounds))
	for _, r := range h.rounds {
		if !r.dropped {
			out = append(out, r)
		}
	}
	return out
}

// answerCost is the round's assistant line cost in its current state.
func (h *history) answerCost(r *histRound) int {
	switch r.state {
	case answerShortened:
		return r.shortCost
	case answerOmitted:
		return h.a.ov.omitted
	}
	return r.fullCost
}

// setState moves r's answer to state, keeping content up to date.
func (h *history) setState(r *histRound, state int) {
	h.content -= h.answerCost(r)
	r.state = state
	h.content += h.answerCost(r)
}

// shorten cuts r's answer to its first ShortenedAnswerRunes code points;
// it reports false when that would not make it shorter.
func (h *history) shorten(r *histRound) bool {
	text := strings.TrimSpace(r.Assistant)
	if utf8.RuneCountInString(text) <= ShortenedAnswerRunes {
		return false
	}
	cut := 0
	for n := range text {
		if cut == ShortenedAnswerRunes {
			text = strings.TrimSpace(text[:n])
			break
		}
		cut++
	}
	r.short = assistantPrefix + neutralize(text) + shortenedMark
	r.shortCost = h.a.c.Count(r.short) + h.a.ov.line
	if r.shortCost >= r.fullCost {
		return false
	}
	h.setState(r, answerShortened)
	return true
}

// fit cuts the conversation until it costs at most limit tokens, in the
// fact-priority order: old answers shortened, then omitted, then the
// summary, then whole rounds (each step lowest priority, then oldest,
// first).
func (h *history) fit(limit int) {
	fits := func() bool { return h.used() <= limit }
	for _, r := range h.cutOrder {
		if fits() {
			return
		}
		h.shorten(r)
	}
	for _, r := range h.cutOrder {
		if fits() {
			return
		}
		if h.answerCost(r) > h.a.ov.omitted {
			h.setState(r, answerOmitted)
		}
	}
	if !fits() && h.summaryKept {
		h.summaryKept = false
		h.content -= h.sumCost
	}
	for _, r := range h.cutOrder {
		if fits() {
			break
		}
		r.dropped = true
		h.content -= r.userCost + h.answerCost(r)
	}
	h.giveBack(limit)
}

// giveBack restores what the room left by the last cut now holds, in
// priority order: the summary, then (only when the summary is in) the
// answers of the rounds kept, highest priority first, whole or else
// shortened.
func (h *history) giveBack(limit int) {
	if h.summaryLine != "" && !h.summaryKept {
		h.content += h.sumCost
		h.summaryKept = true
		if h.used() > limit {
			h.content -= h.sumCost
			h.summaryKept = false
		}
	}
	if h.summaryLine != "" && !h.summaryKept {
		return // an old answer never gets more room than the summary
	}
	for i := len(h.cutOrder) - 1; i >= 0; i-- {
		r := h.cutOrder[i]
		if r.dropped || r.state == answerFull {
			continue
		}
		prev := r.state
		h.setState(r, answerFull)
		if h.used() <= limit {
			continue
		}
		h.setState(r, prev)
		if prev == answerOmitted && r.short != "" {
			h.setState(r, answerShortened)
			if h.used() > limit {
				h.setState(r, answerOmitted)
			}
		}
	}
}
