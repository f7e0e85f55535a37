package offline

import (
	"strings"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/internal/text"
)

// referent returns the standalone form of the question that follow-up q
// refers to, among every round req carries (docs/ENGINE.md D5 and
// "History strategies"), or "" when req carries none. The candidates are,
// newest first, the recent rounds (History), the older rounds the
// strategy kept (Earlier, as ranked) and the summary's lines; the
// previous one (the newest) is the default:
//
//   - a follow-up that puts a new subject into a frame (那X呢, 如果X呢,
//     "what about X", "what if X") refers to the default;
//   - any other refers to the candidate that best matches what it
//     mentions (followUpTerms): first the noun it points back with (第四台设备,
//     "the fourth device", 这个配置), then its other subject terms, each term
//     counting less the more candidates hold it, and a match in a round's
//     question more than one only in its answer. A candidate other than the
//     default must match a pointing term, or a term in its question, and
//     match strictly better than the default: when nothing matches an older
//     round specifically, the previous round stays the referent, and among
//     equal matches the newer wins.
func referent(req llm.RewriteRequest, q string) string {
	cands := referentCandidates(req)
	if len(cands) == 0 {
		return ""
	}
	if framesNewSubject(q) {
		return cands[0].referent
	}
	return cands[chooseReferent(cands, followUpTerms(q))].referent
}

// referentCandidate is one possible referent: its standalone question, and
// the texts it is matched on (its question; its answer's start, where it
// has one).
type referentCandidate struct {
	referent         string
	question, answer *matchText
}

// matchText is a text a follow-up's terms (features) are looked up in: a
// bigram by its two ideographs, a word by its stem.
type matchText struct {
	s string
	// stems are the stems of s's words, made on the first lookup of a word.
	stems map[string]bool
}

func newMatchText(s string) *matchText { return &matchText{s: s} }

// has reports whether the text holds term.
func (m *matchText) has(term string) bool {
	switch {
	case strings.HasPrefix(term, "h2:"):
		return strings.Contains(m.s, term[3:])
	case strings.HasPrefix(term, "w:"):
		if m.stems == nil {
			m.stems = map[string]bool{}
			for _, w := range text.LowerWords(m.s) {
				m.stems[stem(w)] = true
			}
		}
		return m.stems[term[2:]]
	}
	return false
}

// matchAnswerRunes bounds the answer text a round is matched on, as a
// PRIORITIZED round is embedded with the start of its answer.
const matchAnswerRunes = 300

// referentCandidates returns what req carries as possible referents,
// newest first: the recent rounds (each resolved against the rounds
// before it), the earlier rounds in their order, the summary's lines.
func referentCandidates(req llm.RewriteRequest) []referentCandidate {
	var out []referentCandidate
	for i := len(req.History) - 1; i >= 0; i-- {
		r := req.History[i]
		if strings.TrimSpace(r.User) == "" {
			continue
		}
		resolved := resolveHistory(req.History[:i+1])
		out = append(out, referentCandidate{referent: resolved, question: newMatchText(r.User + "\n" + resolved), answer: newMatchText(answerStart(r.Assistant))})
	}
	for _, r := range req.Earlier {
		if u := strings.TrimSpace(r.User); u != "" {
			out = append(out, referentCandidate{referent: u, question: newMatchText(u), answer: newMatchText(answerStart(r.Assistant))})
		}
	}
	for _, s := range summaryQuestions(req.Summary) {
		out = append(out, referentCandidate{referent: s.question, question: newMatchText(s.text), answer: newMatchText("")})
	}
	return out
}

// answerStart returns the start of an answer, at most matchAnswerRunes.
func answerStart(a string) string {
	a = strings.TrimSpace(a)
	if utf8.RuneCountInString(a) > matchAnswerRunes {
		a = string([]rune(a)[:matchAnswerRunes])
	}
	return a
}

// referentScore is how well a candidate matches a follow-up: pointing
// terms first, then the other subject terms.
type referentScore struct{ pointing, other float64 }

// scoreEpsilon absorbs rounding in comparing scores.
const scoreEpsilon = 1e-9

func (s referentScore) beats(o referentScore) bool {
	if d := s.pointing - o.pointing; d > scoreEpsilon || d < -scoreEpsilon {
		return d > 0
	}
	return s.other-o.other > scoreEpsilon
}

// chooseReferent returns the index of the candidate t refers to, 0 (the
// newest) unless another matches strictly better (referent).
func chooseReferent(cands []referentCandidate, t followUp) int {
	if len(t.pointing)+len(t.other) == 0 {
		return 0
	}
	// A term's weight is 1 over the number of candidates that hold it: a
	// term every round mentions says little about which one is meant.
	weight := map[string]float64{}
	for _, term := range append(append([]string{}, t.pointing...), t.other...) {
		n := 0
		for _, c := range cands {
			if c.question.has(term) || c.answer.has(term) {
				n++
			}
		}
		if n > 0 {
			weight[term] = 1 / float64(n)
		}
	}
	score := func(c referentCandidate) (referentScore, bool) {
		var s referentScore
		qualifies := false
		add := func(sum *float64, term string, pointing bool) {
			switch {
			case c.question.has(term):
				*sum += weight[term]
				qualifies = true
			case c.answer.has(term):
				*sum += weight[term] / 2
				qualifies = qualifies || pointing
			}
		}
		for _, term := range t.pointing {
			add(&s.pointing, term, true)
		}
		for _, term := range t.other {
			add(&s.other, term, false)
		}
		return s, qualifies
	}
	best, bestScore := 0, referentScore{}
	bestScore, _ = score(cands[0])
	for i := 1; i < len(cands); i++ {
		if s, ok := score(cands[i]); ok && s.beats(bestScore) {
			best, bestScore = i, s
		}
	}
	return best
}

// summarisedQuestion is one summary line as a possible referent: the
// question it records (or, for a line that records only statements, the
// statements), and its text without labels and outcome, to match on.
type summarisedQuestion struct {
	question, text string
}

// summaryQuestions returns the lines of summary, newest (last) first, as
// possible referents. A line of the summariser's form ("用户陈述：…；用户问：…；
// 助手回答结果：…", llm.SummaryLine) gives its question, else its
// statements; the outcome is never a referent.
func summaryQuestions(summary string) []summarisedQuestion {
	lines := strings.Split(summary, "\n")
	var out []summarisedQuestion
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		for _, label := range []string{llm.LabelAssistantOutcomeZH, llm.LabelAssistantOutcomeEN} {
			if j := strings.Index(l, label); j >= 0 {
				l = l[:j]
			}
		}
		l = strings.TrimRight(strings.TrimSpace(l), "；;")
		q := l
		for _, label := range []string{llm.LabelUserAskedZH, llm.LabelUserAskedEN} {
			if j := strings.Index(l, label); j >= 0 {
				q = l[j+len(label):]
				break
			}
		}
		q = strings.TrimSpace(stripLabels(q))
		if q == "" {
			continue
		}
		out = append(out, summarisedQuestion{question: q, text: stripLabels(l)})
	}
	return out
}

// stripLabels removes the summary labels from s.
func stripLabels(s string) string {
	for _, label := range []string{llm.LabelUserStatedZH, llm.LabelUserAskedZH, llm.LabelUserStatedEN, llm.LabelUserAskedEN} {
		s = strings.ReplaceAll(s, label, " ")
	}
	return strings.TrimLeft(strings.TrimSpace(s), "-•* ")
}

// framesNewSubject reports whether follow-up q names a new subject for
// the previous question's frame (combineZH's and combineEN's first rules).
func framesNewSubject(q string) bool {
	if !text.HasHan(q) {
		body := text.TrimQuestion(q)
		return enWhatIf.MatchString(body) || enWhatAbout.MatchString(body)
	}
	body, _ := stripPrefixes(text.TrimQuestion(q), zhLeadingRefs)
	x, ok := strings.CutSuffix(strings.TrimLeft(body, "，,、 "), "呢")
	if !ok {
		return false
	}
	x, _ = stripPrefixes(strings.TrimSpace(x), zhConditional)
	return isPlainTopic(strings.TrimSpace(x))
}
