package chunker

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The cut functions below return the offsets, relative to s and in
// ascending order, where s may be cut. Cutting never loses text: the pieces
// between consecutive cuts are trimmed of white space only.

// sentenceCuts returns the sentence ends of prose s. A sentence ends:
//   - after Chinese or full-width terminal punctuation (。！？；… ｡ ．),
//     whatever follows, together with any closing quotes or brackets;
//   - after '!', '?' or '.' (and closing quotes or brackets) followed by
//     white space, a CJK character or the end, except that a single '.'
//     does not end a sentence after an abbreviation ("e.g.", "Dr."), an
//     initial ("J."), a list number at the start of the sentence ("1."), or
//     before a lower-case word; a '.' between digits ("20.5MB", "v1.2.3")
//     is never followed by a space, so it never ends one;
//   - at a line break, unless the line break only wraps an English
//     sentence (the line does not end in punctuation or CJK text and the
//     next one starts with a lower-case letter or a digit).
func sentenceCuts(s string) []int {
	var cuts []int
	start := 0 // the start of the current sentence
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			if !softWrap(s, i) {
				cuts = append(cuts, i)
				start = i
			}
			i += w
		case isCJKTerminator(r):
			j := skipClosers(s, skipWhile(s, i, isCJKTerminator))
			cuts = append(cuts, j)
			start, i = j, j
		case r == '!' || r == '?':
			j := skipClosers(s, skipWhile(s, i, func(r rune) bool { return r == '!' || r == '?' }))
			if boundaryAt(s, j) {
				cuts = append(cuts, j)
				start = j
			}
			i = j
		case r == '.':
			j := skipWhile(s, i, func(r rune) bool { return r == '.' })
			single := j-i == 1
			j = skipClosers(s, j)
			if boundaryAt(s, j) && !(single && (abbreviationBefore(s, start, i) || lowerCaseAfter(s, j))) {
				cuts = append(cuts, j)
				start = j
			}
			i = j
		default:
			i += w
		}
	}
	return cuts
}

// clauseCuts returns the ends of the clauses of s: after '，', '、', '：',
// '；', ';', a ',' not followed by a digit ("1,000" stays whole) and a ':'
// followed by white space ("http://" and "10:30" stay whole), with any
// closing quotes or brackets.
func clauseCuts(s string) []int {
	var cuts []int
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		cut := false
		switch r {
		case '，', '、', '：', '；', ';':
			cut = true
		case ',':
			next, _ := utf8.DecodeRuneInString(s[i:])
			cut = i == len(s) || !unicode.IsDigit(next)
		case ':':
			next, _ := utf8.DecodeRuneInString(s[i:])
			cut = i == len(s) || unicode.IsSpace(next)
		}
		if cut {
			i = skipClosers(s, i)
			cuts = append(cuts, i)
		}
	}
	return cuts
}

// wordCuts returns the ends of the words of s and the boundaries of every
// CJK character, which stands for a word of its own.
func wordCuts(s string) []int {
	var cuts []int
	prevSpace, prevCJK := true, false
	for i, r := range s {
		space, cjk := unicode.IsSpace(r), isCJK(r)
		if i > 0 && ((space && !prevSpace) || cjk || (prevCJK && !space)) {
			cuts = append(cuts, i)
		}
		prevSpace, prevCJK = space, cjk
	}
	return append(cuts, len(s))
}

// runeCuts returns every rune boundary of s.
func runeCuts(s string) []int {
	cuts := make([]int, 0, len(s))
	for i := range s {
		if i > 0 {
			cuts = append(cuts, i)
		}
	}
	return append(cuts, len(s))
}

// lineCuts returns the position of every line break of s, so that the next
// piece starts with the break and keeps the next line's indentation.
func lineCuts(s string) []int {
	var cuts []int
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			cuts = append(cuts, i)
		}
	}
	return append(cuts, len(s))
}

// isCJKTerminator reports whether r ends a Chinese or full-width sentence.
func isCJKTerminator(r rune) bool {
	switch r {
	case '。', '！', '？', '；', '…', '｡', '．':
		return true
	}
	return false
}

// isCloser reports whether r closes a quotation or bracket.
func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '”', '’', '」', '』', '）', '】', '》', '〉', '〕', '＂', '＇', '］':
		return true
	}
	return false
}

// isCJK reports whether r is a CJK ideograph, kana, Hangul, CJK punctuation
// (U+3000–U+303F) or a full-width form (U+FF00–U+FFEF).
func isCJK(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	if (r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF) {
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// skipWhile returns the offset of the first rune at or after i that does
// not satisfy f.
func skipWhile(s string, i int, f func(rune) bool) int {
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !f(r) {
			break
		}
		i += w
	}
	return i
}

// skipClosers skips closing quotes and brackets from i.
func skipClosers(s string, i int) int { return skipWhile(s, i, isCloser) }

// boundaryAt reports whether a sentence may end at i: at the end of s or
// before white space or a CJK character.
func boundaryAt(s string, i int) bool {
	if i >= len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r) || isCJK(r)
}

// lowerCaseAfter reports whether the first non-space rune after i is a
// lower-case letter, which means the '.' before i did not end a sentence.
func lowerCaseAfter(s string, i int) bool {
	for _, r := range s[i:] {
		if !unicode.IsSpace(r) {
			return unicode.IsLower(r)
		}
	}
	return false
}

// abbreviations end in a '.' that does not end a sentence. "etc." is not
// one: it usually does, and "etc. and so on" is caught by the lower-case
// rule.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "eg": true, "ie": true, "cf": true, "vs": true,
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true,
	"jr": true, "st": true, "fig": true, "approx": true, "al": true,
	"inc": true, "ltd": true, "co": true, "corp": true, "dept": true,
	"vol": true, "ver": true, "resp": true, "incl": true,
}

// abbreviationBefore reports whether the word that ends with the '.' at
// dot is an abbreviation, an initial ("J", "U.S") or, at the start of the
// sentence that began at start, a list number ("1").
func abbreviationBefore(s string, start, dot int) bool {
	from := dot
	for from > start {
		r, w := utf8.DecodeLastRuneInString(s[start:from])
		if unicode.IsSpace(r) || isCJK(r) {
			break
		}
		from -= w
	}
	word := strings.TrimLeft(s[from:dot], "([{\"'“‘（")
	if word == "" {
		return false
	}
	if strings.TrimSpace(s[start:from]) == "" && strings.Trim(word, "0123456789") == "" {
		return true // a list number: "1. Open the settings."
	}
	lower := strings.ToLower(word)
	if abbreviations[lower] {
		return true
	}
	// An initial or an initialism: "J", "U.S", "e.g" — single letters
	// separated by dots.
	parts := strings.Split(word, ".")
	for _, part := range parts {
		r, n := utf8.DecodeRuneInString(part)
		if n != len(part) || !unicode.IsLetter(r) {
			return false
		}
	}
	// A lone lower-case letter is a word ("plan b."), not an initial.
	first, _ := utf8.DecodeRuneInString(word)
	return len(parts) > 1 || unicode.IsUpper(first)
}

// softWrap reports whether the line break at i only wraps an English
// sentence: the text before it on its line does not end in punctuation or
// CJK, and the next line starts with a lower-case letter or a digit.
func softWrap(s string, i int) bool {
	before := strings.TrimRight(s[:i], " \t")
	after := strings.TrimLeft(s[i+1:], " \t")
	if before == "" || after == "" {
		return false
	}
	prev, _ := utf8.DecodeLastRuneInString(before)
	next, _ := utf8.DecodeRuneInString(after)
	if prev == '\n' || isCJK(prev) || strings.ContainsRune(".!?;:", prev) || isCloser(prev) {
		return false
	}
	return unicode.IsLower(next) || unicode.IsDigit(next)
}
