package tokens

import (
	"iter"
	"unicode"
	"unicode/utf8"
)

// maxRun is the longest run of runes of one class (runClass) that is
// tokenised as one piece. Words and CJK sentences are rarely longer;
// the byte-pair merge of a piece costs about the square of its length.
const maxRun = 64

// runClass is the class of r as the tiktoken patterns group runes into
// pieces: letters (and the marks that combine with them), digits,
// whitespace, and everything else.
func runClass(r rune) uint8 {
	switch {
	case unicode.IsLetter(r), unicode.IsMark(r):
		return 1
	case unicode.IsNumber(r):
		return 2
	case unicode.IsSpace(r):
		return 3
	}
	return 4
}

// runParts yields s in consecutive parts, cut only where a run of runes of
// one class has reached maxRun runes, so that no part holds a longer run.
// A text with no such run is one part.
func runParts(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		if utf8.RuneCountInString(s) <= maxRun {
			yield(s)
			return
		}
		start, run := 0, 0
		var class uint8
		for i, r := range s {
			k := runClass(r)
			if k != class {
				class, run = k, 0
			}
			if run == maxRun {
				if !yield(s[start:i]) {
					return
				}
				start, run = i, 0
			}
			run++
		}
		yield(s[start:])
	}
}
