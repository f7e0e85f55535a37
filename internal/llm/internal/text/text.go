// Package text holds the small language helpers shared by the rule gate and
// the offline model: script detection, word splitting and the question-word
// lists of Chinese and English.
package text

import (
	"strings"
	"unicode"
)

// IsHan reports whether r is a CJK ideograph.
func IsHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// HasHan reports whether s contains a CJK ideograph.
func HasHan(s string) bool {
	for _, r := range s {
		if IsHan(r) {
			return true
		}
	}
	return false
}

// CountHan counts the CJK ideographs of s.
func CountHan(s string) int {
	n := 0
	for _, r := range s {
		if IsHan(r) {
			n++
		}
	}
	return n
}

// IsWordRune reports whether r belongs to a Latin-script word: letters
// (other than CJK), digits and the underscore, so that identifiers such as
// ERR_FILE_TOO_LARGE stay one word.
func IsWordRune(r rune) bool {
	return (unicode.IsLetter(r) && !IsHan(r) && !unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Hangul)) ||
		unicode.IsDigit(r) || r == '_'
}

// Words returns the Latin-script words of s in order, keeping their case.
// An apostrophe inside a word ("it's") stays part of it.
func Words(s string) []string {
	var out []string
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		inner := (r == '\'' || r == '’') && b.Len() > 0 && i+1 < len(rs) && IsWordRune(rs[i+1])
		if IsWordRune(r) || inner {
			if r == '’' {
				r = '\''
			}
			b.WriteRune(r)
			continue
		}
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// LowerWords returns Words(s) lower-cased.
func LowerWords(s string) []string {
	w := Words(s)
	for i := range w {
		w[i] = strings.ToLower(w[i])
	}
	return w
}

// IsPunct reports whether r is punctuation or a symbol of either script.
func IsPunct(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }

// TrimQuestion trims surrounding space and trailing punctuation ("？", "?",
// "。", "!") from s.
func TrimQuestion(s string) string {
	s = strings.TrimSpace(s)
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || IsPunct(r) })
}

// ZHQuestionWords are Chinese interrogatives and polite fillers that carry
// no topic and are safe to delete anywhere. Longer entries come first so
// that removal is greedy.
var ZHQuestionWords = []string{
	"是什么意思", "什么意思", "是什么", "什么是", "什么叫", "是多少", "多少钱", "为什么", "怎么样",
	"是不是", "能不能", "有没有", "可不可以", "可以吗", "我想知道", "想知道", "请问",
	"什么", "怎么", "怎样", "如何", "为啥", "哪里", "哪儿", "哪些", "哪个", "哪种", "多少",
	"多久", "多大", "多长", "是否", "能否", "可否", "一下",
}

// ZHParticles are single-rune sentence particles and interrogatives that
// never occur inside content words.
const ZHParticles = "吗呢吧啊呀么哪"

// ZHFillers are single-rune function words. They also occur inside content
// words (会话, 功能), so they are only skipped when counting, never deleted.
const ZHFillers = "是的了有要会能在还请和与或也都就"

// RemoveZHQuestionWords replaces every Chinese question word and particle
// of s by a space, leaving the topic-bearing text (Latin words and digits
// stay).
func RemoveZHQuestionWords(s string) string {
	for _, w := range ZHQuestionWords {
		s = strings.ReplaceAll(s, w, " ")
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(ZHParticles, r) {
			return ' '
		}
		return r
	}, s)
}

// ENStopWords are English function words and interrogatives that carry no
// topic.
var ENStopWords = toSet(`a an the is are was were be been am do does did can could should would
will shall may might must what what's which who whom whose when where why how i me my we our
you your to of in on at for with by from about and or so then if there any please tell much many
it its it's this that these those they them their also as into than too very just not no yes
some one ones else up`)

func toSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
