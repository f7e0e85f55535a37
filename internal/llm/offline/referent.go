package offline

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/internal/text"
)

// referent returns the standalone form of the question that follow-up q
// refers to, from what req carries of the history (docs/ENGINE.md D5 and
// "History strategies"), or "" when req carries none:
//
//   - a follow-up that puts a new subject into a frame (那X呢, 如果X呢,
//     "what about X", "what if X") refers to the previous round;
//   - any other follow-up refers to the newest recent round that shares
//     one of its subject terms (a Latin word or entity, a Chinese
//     character bigram; 那第四台设备会报什么错 has 设备); when no recent round
//     does, to the first earlier round (most relevant first) that does,
//     then to the newest summarised question that does;
//   - when nothing shares a term, to the previous round, or without recent
//     rounds to the most relevant earlier round or the newest summarised
//     question.
func referent(req llm.RewriteRequest, q string) string {
	summarised := summaryQuestions(req.Summary)
	fallback := func() string {
		switch {
		case len(req.History) > 0:
			return resolveHistory(req.History)
		case len(req.Earlier) > 0:
			return strings.TrimSpace(req.Earlier[0].User)
		case len(summarised) > 0:
			return summarised[0].question
		}
		return ""
	}
	if framesNewSubject(q) {
		return fallback()
	}
	subject := subjectTerms(q)
	if len(subject) == 0 {
		return fallback()
	}
	for i := len(req.History) - 1; i >= 0; i-- {
		if sharesTerm(subject, roundMatchText(req.History[i])) {
			return resolveHistory(req.History[:i+1])
		}
	}
	for _, r := range req.Earlier {
		if u := strings.TrimSpace(r.User); u != "" && sharesTerm(subject, roundMatchText(r)) {
			return u
		}
	}
	for _, s := range summarised {
		if sharesTerm(subject, s.text) {
			return s.question
		}
	}
	return fallback()
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

var (
	// zhOrdinalPhrase matches an ordinal with its measure word (第四台,
	// 第二种): it points into a list, it names no subject.
	zhOrdinalPhrase = regexp.MustCompile(`第[一二三四五六七八九十百两\d]+\p{Han}?`)
	// zhReferenceWords are removed before a follow-up's subject terms are
	// taken; longer entries first.
	zhReferenceWords = []string{
		"刚才提到的", "刚才说的", "上面提到的", "上面说的", "前面提到的", "之前提到的",
		"它们", "这个", "那个", "这些", "那些", "这种", "那种", "刚才", "上面", "前面", "之前",
		"它", "这", "那",
	}
	// enNonSubject are English words of a follow-up that name no subject:
	// ordinals and list references.
	enNonSubject = map[string]bool{
		"first": true, "second": true, "third": true, "fourth": true, "fifth": true, "sixth": true,
		"seventh": true, "eighth": true, "ninth": true, "tenth": true, "last": true, "next": true,
		"other": true, "another": true, "former": true, "latter": true, "previous": true, "same": true,
		"one": true, "ones": true, "option": true, "about": true, "he": true, "she": true, "him": true, "her": true,
	}
)

// subjectTerms returns the features of follow-up q that name its subject:
// its Latin words (stemmed, as the embedding counts them) and its Chinese
// character bigrams, without references, ordinals, question words and
// bigrams that hold a function word (会报 in 会报什么错).
func subjectTerms(q string) []string {
	s, _ := stripPrefixes(text.TrimQuestion(q), zhLeadingRefs)
	s = enLeadingRefs.ReplaceAllString(s, "")
	s = zhOrdinalPhrase.ReplaceAllString(s, " ")
	for _, w := range zhReferenceWords {
		s = strings.ReplaceAll(s, w, " ")
	}
	var out []string
	for k := range features(s) {
		switch {
		case strings.HasPrefix(k, "w:"):
			if !enNonSubject[k[2:]] {
				out = append(out, k)
			}
		case strings.HasPrefix(k, "h2:"):
			if !strings.ContainsAny(k[3:], text.ZHFillers+hanEdgeStop) {
				out = append(out, k)
			}
		}
	}
	return out
}

// sharesTerm reports whether s has one of the subject terms.
func sharesTerm(subject []string, s string) bool {
	f := features(s)
	for _, t := range subject {
		if f[t] > 0 {
			return true
		}
	}
	return false
}

// matchAnswerRunes bounds the answer text a round is matched on, as a
// PRIORITIZED round is embedded with the start of its answer.
const matchAnswerRunes = 300

// roundMatchText is what a round is matched on: its question and the
// start of its answer.
func roundMatchText(r llm.Round) string {
	a := strings.TrimSpace(r.Assistant)
	if utf8.RuneCountInString(a) > matchAnswerRunes {
		a = string([]rune(a)[:matchAnswerRunes])
	}
	return r.User + "\n" + a
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
