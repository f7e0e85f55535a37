package llm

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/ragchat/ragchat/internal/llm/internal/text"
)

// NeedsHistory is the cheap rule gate run before the rewriter: it reports
// whether question probably depends on earlier rounds, so that standalone
// questions skip the rewrite call. It is always false without history.
//
// A question depends on history when it contains a reference (Chinese 那,
// 这个, 它, 刚才, 上面, 第二种 …; English "it", "that", "what about",
// "the second one" …), is a short "X呢？" question, or is very short
// (at most two topic runes in Chinese, at most three words in English)
// without being a definition question such as 什么是RAG？ or "What is RAG?".
// Rules only optimise; they cannot be exact (docs/ENGINE.md D5).
func NeedsHistory(question string, hasHistory bool) bool {
	if !hasHistory {
		return false
	}
	q := strings.TrimSpace(question)
	if q == "" {
		return false
	}
	if hasZHReference(q) || hasENReference(q) {
		return true
	}
	if definitional(q) {
		return false
	}
	if text.HasHan(q) {
		return shortZH(q)
	}
	return len(text.Words(q)) <= 3
}

// zhAnywhere are Chinese references that make a question depend on history
// wherever they occur.
var zhAnywhere = []string{
	"这", "那个", "那些", "那种", "那样", "那里", "那边", "那两", "它", "他们", "她",
	"刚才", "刚刚", "上面", "前面", "之前", "上述", "以上", "前者", "后者", "两者", "二者",
	"其中", "同上", "上一", "还有呢", "还有吗", "然后呢", "另一个", "另一种", "也一样", "一样吗",
	"也是吗", "也可以吗", "也适用",
}

// zhLeading are references that count only at the start of a question
// ("那超过以后呢" but not "如果超过，那会怎样").
var zhLeading = []string{"那", "那么", "所以", "还有", "另外", "如果是", "换成", "改成"}

// zhOrdinal matches "第二个", "第一种" and similar references to list items.
var zhOrdinal = regexp.MustCompile(`第[一二三四五六七八九十两\d]+(个|种|条|项|点|步|类|款|套|部分|张|位|台|篇|章|节|段|份)`)

func hasZHReference(q string) bool {
	body := strings.ReplaceAll(q, "其它", "其他")
	for _, m := range zhAnywhere {
		if strings.Contains(body, m) {
			return true
		}
	}
	for _, m := range zhLeading {
		if strings.HasPrefix(body, m) {
			return true
		}
	}
	if zhOrdinal.MatchString(body) {
		return true
	}
	// "银行卡呢？": a short question ending in 呢 asks "what about X".
	t := text.TrimQuestion(body)
	return strings.HasSuffix(t, "呢") && text.CountHan(t) <= 12
}

// enPhrases are English references that count wherever they occur.
var enPhrases = []string{
	"what about", "how about", "and for", "same for", "same with", "the second one", "the first one",
	"the other one", "the former", "the latter", "mentioned above", "you mentioned", "you said",
	"as above", "the previous", "the last one", "that one", "this one", "what else", "and then",
	"why not", "the same",
}

// enLeading are English references that count at the start of a question.
var enLeading = map[string]bool{"and": true, "so": true, "then": true, "also": true, "but": true, "or": true}

// enPronouns are references that count in short questions, near the start
// or at the end of a question (a pronoun deep inside a long question
// usually refers within the question itself).
var enPronouns = map[string]bool{
	"first": true, "second": true, "third": true, "fourth": true, "fifth": true, "sixth": true,
	"seventh": true, "eighth": true, "ninth": true, "tenth": true, "last": true, "former": true, "latter": true,
	"it": true, "its": true, "it's": true, "this": true, "that": true, "these": true, "those": true,
	"they": true, "them": true, "their": true, "he": true, "she": true, "him": true, "her": true,
}

// enOrdinals refer to an item of an earlier list or count only as "the
// second one/option/…", "the second" at the end, or "the fourth X" that
// nothing after it specifies ("What error does the fourth device get?";
// but "the first step to install X" is standalone).
var enOrdinals = map[string]bool{
	"first": true, "second": true, "third": true, "fourth": true, "fifth": true, "sixth": true,
	"seventh": true, "eighth": true, "ninth": true, "tenth": true, "last": true, "former": true, "latter": true,
}

// enSpecifiers start what says which X "the second X" is ("the first step
// to install pgvector", "the third chapter of the guide").
var enSpecifiers = map[string]bool{
	"to": true, "of": true, "for": true, "in": true, "on": true, "at": true, "with": true, "from": true,
	"that": true, "which": true, "who": true, "about": true, "after": true, "before": true, "when": true,
}

var enListNouns = map[string]bool{
	"one": true, "ones": true, "option": true, "approach": true, "method": true, "solution": true,
	"way": true, "choice": true, "point": true, "item": true, "answer": true, "suggestion": true,
}

func ordinalReference(words []string, i int) bool {
	if i == 0 || words[i-1] != "the" {
		return false
	}
	if i == len(words)-1 || enListNouns[words[i+1]] {
		return true
	}
	return i+2 == len(words) || !enSpecifiers[words[i+2]]
}

func hasENReference(q string) bool {
	words := text.LowerWords(q)
	if len(words) == 0 {
		return false
	}
	joined := " " + strings.Join(words, " ") + " "
	for _, p := range enPhrases {
		if strings.Contains(joined, " "+p+" ") {
			return true
		}
	}
	if enLeading[words[0]] {
		return true
	}
	for i, w := range words {
		if !enPronouns[w] {
			continue
		}
		if enOrdinals[w] && !ordinalReference(words, i) {
			continue
		}
		if len(words) <= 8 || i < 3 || i == len(words)-1 {
			return true
		}
	}
	return false
}

var (
	zhDefinition = regexp.MustCompile(`^(?:什么是|什么叫|何为|何谓|请解释|解释一下|介绍一下)(.+)$`)
	zhDefinedAs  = regexp.MustCompile(`^(.+?)(?:是什么意思|是什么|是啥|指什么|的定义)$`)
	enDefinition = regexp.MustCompile(`(?i)^(?:what\s+(?:is|are)|what's|who\s+is|define|explain|describe)\s+(.+)$`)
)

// definitional reports whether q asks what something is and names it.
func definitional(q string) bool {
	t := text.TrimQuestion(q)
	for _, re := range []*regexp.Regexp{zhDefinition, zhDefinedAs, enDefinition} {
		if m := re.FindStringSubmatch(t); m != nil && namesSomething(m[1]) {
			return true
		}
	}
	return false
}

func namesSomething(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	w := text.LowerWords(s)
	if len(w) > 0 && enPronouns[w[0]] && !text.HasHan(s) {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// shortZH reports whether a Chinese question is too short to stand alone:
// at most six ideographs, at most two of them topic-bearing, and no Latin
// name or number.
func shortZH(q string) bool {
	if text.CountHan(q) > 6 {
		return false
	}
	rest := text.RemoveZHQuestionWords(q)
	if len(text.Words(rest)) > 0 {
		return false
	}
	content := 0
	for _, r := range rest {
		if text.IsHan(r) && !strings.ContainsRune(text.ZHFillers, r) {
			content++
		}
	}
	return content <= 2
}
