package offline

import (
	"regexp"
	"strings"

	"github.com/ragchat/ragchat/internal/llm/internal/text"
)

var (
	enWhatAbout   = regexp.MustCompile(`(?i)^(?:and\s+)?(?:what|how)\s+about\s+(.+)$|^(?:and|same)\s+for\s+(.+)$|^same\s+with\s+(.+)$`)
	enWhatIf      = regexp.MustCompile(`(?i)^(?:and\s+)?what\s+if\s+(.+)$`)
	enLeadingRefs = regexp.MustCompile(`(?i)^(?:and|so|then|also|but|or)\b[\s,]*`)
	enQuestionPhr = regexp.MustCompile(`(?i)\bhow\s+(?:long|much|many|often|soon|far|big)\b`)

	enSubject  = regexp.MustCompile(`(?i)\b(it|they|them)\b`)
	enPossess  = regexp.MustCompile(`(?i)\b(its|their)\b`)
	enDemoVerb = regexp.MustCompile(`(?i)\b(?:this|that|these|those)\s+(` + strings.Join(enDemoVerbList, "|") + `)\b`)
	enDemoEnd  = regexp.MustCompile(`(?i)\b(?:this|that|these|those)\s*$`)
	enDemoNoun = regexp.MustCompile(`(?i)\b(?:this|that|these|those)\s+(\w+)`)
)

// enDemoVerbList are the verbs after which a demonstrative stands for the
// topic ("that means", "this costs"): the word after it is no noun.
var enDemoVerbList = []string{"is", "are", "was", "were", "does", "do", "did", "mean", "means", "work", "works", "cost", "costs",
	"take", "takes", "happen", "happens", "support", "supports", "include", "includes", "require", "requires", "apply", "applies"}

// enDemoVerbs is enDemoVerbList as a set.
var enDemoVerbs = func() map[string]bool {
	m := map[string]bool{}
	for _, v := range enDemoVerbList {
		m[v] = true
	}
	return m
}()

func combineEN(prev, q string) string {
	frame := text.TrimQuestion(prev)
	body := text.TrimQuestion(q)
	if m := enWhatIf.FindStringSubmatch(body); m != nil {
		return frame + " if " + m[1] + "?"
	}
	if m := enWhatAbout.FindStringSubmatch(body); m != nil {
		x := firstNonEmpty(m[1:]...)
		return frame + " for " + x + "?"
	}
	body = enLeadingRefs.ReplaceAllString(body, "")
	topic := topicEN(prev)
	if topic == "" {
		topic = frame
	}
	if out, ok := replaceENPronouns(body, topic); ok {
		return upperFirst(out) + "?"
	}
	return "Regarding " + topic + ": " + body + "?"
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// topicEN keeps the content words of a question ("How long do refunds
// take?" → "refunds take").
func topicEN(q string) string {
	q = enQuestionPhr.ReplaceAllString(text.TrimQuestion(q), " ")
	var keep []string
	for _, w := range text.Words(q) {
		if !text.ENStopWords[strings.ToLower(w)] {
			keep = append(keep, w)
		}
	}
	return strings.Join(keep, " ")
}

func replaceENPronouns(body, topic string) (string, bool) {
	orig := body
	body = enDemoVerb.ReplaceAllString(body, topic+" $1")
	body = enDemoEnd.ReplaceAllString(body, topic)
	body = enDemoNoun.ReplaceAllString(body, "the $1 for "+topic)
	body = enPossess.ReplaceAllString(body, topic+"'s")
	body = enSubject.ReplaceAllString(body, topic)
	return body, body != orig
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	if r[0] >= 'a' && r[0] <= 'z' {
		r[0] -= 'a' - 'A'
	}
	return string(r)
}
