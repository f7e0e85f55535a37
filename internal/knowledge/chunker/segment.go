package chunker

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The cut functions below yield the offsets, relative to s and in
// ascending order, where s may be cut. Cutting never loses text: the pieces
// between consecutive cuts are trimmed of white space only. They scan s
// front to back, and only as far as their consumer reads.

// sentenceCuts yields the sentence ends of prose s. A sentence ends:
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
func sentenceCuts(s string) iter.Seq[int] {
	return func(yield func(int) bool) {
		start := 0 // the start of the current sentence
		for i := 0; i < len(s); {
			r, w := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == '\n':
				if !softWrap(s, i) {
					if !yield(i) {
						return
					}
					start = i
				}
				i += w
			case isCJKTerminator(r):
				j := skipClosers(s, skipWhile(s, i, isCJKTerminator))
				if !yield(j) {
					return
				}
				start, i = j, j
			case r == '!' || r == '?':
				j := skipClosers(s, skipWhile(s, i, func(r rune) bool { return r == '!' || r == '?' }))
				if boundaryAt(s, j) {
					if !yield(j) {
						return
					}
					start = j
				}
				i = j
			case r == '.':
				j := skipWhile(s, i, func(r rune) bool { return r == '.' })
				single := j-i == 1
				j = skipClosers(s, j)
				if boundaryAt(s, j) && !(single && (abbreviationBefore(s, start, i) || lowerCaseAfter(s, j))) {
					if !yield(j) {
						return
					}
					start = j
				}
				i = j
			default:
				i += w
			}
		}
	}
}

// clauseCuts yields the ends of the clauses of s: after '，', '、', '：',
// '；', ';', a ',' not followed by a digit ("1,000" stays whole) and a ':'
// followed by white space ("http://" and "10:30" stay whole), with any
// closing quotes or brackets.
func clauseCuts(s string) iter.Seq[int] {
	return func(yield func(int) bool) {
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
				if !yield(i) {
					return
				}
			}
		}
	}
}

// wordCuts yields the ends of the words of s and the boundaries of every
// CJK character, which stands for a word of its own.
func wordCuts(s string) iter.Seq[int] {
	return func(yield func(int) bool) {
		prevSpace, prevCJK := true, false
		for i, r := range s {
			space, cjk := unicode.IsSpace(r), isCJK(r)
			if i > 0 && ((space && !prevSpace) || cjk || (prevCJK && !space)) {
				if !yield(i) {
					return
				}
			}
			prevSpace, prevCJK = space, cjk
		}
		yield(len(s))
	}
}

// runeCuts yields every rune boundary of s after its start.
func runeCuts(s string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range s {
			if i > 0 && !yield(i) {
				return
			}
		}
		yield(len(s))
	}
}

// lineCuts yields the position of every line break of s, so that the next
// piece starts with the break and keeps the next line's indentation.
func lineCuts(s string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < len(s); i++ {
			if s[i] == '\n' && !yield(i) {
				return
			}
		}
		yield(len(s))
	}
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
	if strings.Trim(word, "0123456789") == "" && blankBefore(s, start, from) {
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

// blankBefore reports whether s[start:i] is white space only. It reads back
// from i, so that it reads only the white space before a word, which no
// other word's check reads again.
func blankBefore(s string, start, i int) bool {
	for i > start {
		r, w := utf8.DecodeLastRuneInString(s[start:i])
		if !unicode.IsSpace(r) {
			return false
		}
		i -= w
	}
	return true
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
