package tokens

import (
	"unicode"
	"unicode/utf8"
)

// EstimatorName is the Name of Estimator. Bump the version whenever the
// heuristic changes, since context manifests record it.
const EstimatorName = "estimate/v1"

// Weights of the estimate, in quarter tokens.
const (
	quarter       = 4  // one token
	cjkQuarters   = 5  // a CJK rune: 1.25 tokens
	astralQuarter = 12 // a rune outside the BMP (emoji, rare Han): 3 tokens
)

// Estimator is a fast, allocation-free token estimate for models whose
// tokenizer is unknown. It is deliberately conservative: on Chinese and
// English text it counts more tokens than cl100k_base (and hence than
// o200k_base), so budgets computed with it do not overflow a real context
// window.
//
// It adds up:
//   - each CJK rune (Han, Hiragana, Katakana, Hangul, CJK and full-width
//     punctuation): 1.25 tokens, because cl100k_base spends two or three
//     tokens on many less common Han characters;
//   - each run of ASCII letters: ceil(len/4) tokens;
//   - each run of ASCII digits: ceil(len/3) tokens (BPE encoders split
//     numbers into groups of at most three digits);
//   - each rune outside the Basic Multilingual Plane (emoji, rare Han):
//     3 tokens;
//   - any other rune that is not ASCII whitespace (punctuation, symbols,
//     other scripts, non-breaking spaces): 1 token;
//   - ASCII whitespace: nothing;
//
// and multiplies the sum by a safety factor of 1.1, rounding up.
type Estimator struct{}

// Name returns EstimatorName.
func (Estimator) Name() string { return EstimatorName }

// Count returns the estimated number of tokens of s.
func (Estimator) Count(s string) int {
	q := 0 // quarter tokens
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isASCIILetter(c):
			j := runEnd(s, i, isASCIILetter)
			q += quarter * ((j - i + 3) / 4)
			i = j
		case isASCIIDigit(c):
			j := runEnd(s, i, isASCIIDigit)
			q += quarter * ((j - i + 2) / 3)
			i = j
		case c < utf8.RuneSelf:
			if !isASCIISpace(c) {
				q += quarter
			}
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			q += runeQuarters(r)
		}
	}
	// Quarters to tokens, times 1.1, rounded up, in integer arithmetic.
	return (q*11 + 39) / 40
}

// runEnd returns the end of the run of bytes of s that in reports true
// for, starting at i (whose byte is in it).
func runEnd(s string, i int, in func(byte) bool) int {
	j := i + 1
	for j < len(s) && in(s[j]) {
		j++
	}
	return j
}

// runeQuarters weighs one non-ASCII rune.
func runeQuarters(r rune) int {
	switch {
	case r > 0xFFFF:
		return astralQuarter
	case isCJK(r):
		return cjkQuarters
	default:
		return quarter
	}
}

// cjkTables are the scripts and blocks counted as CJK.
var cjkTables = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul}

// isCJK reports whether r is a CJK ideograph, kana, Hangul syllable, CJK
// punctuation (U+3000–U+303F) or a full-width form (U+FF00–U+FFEF).
func isCJK(r rune) bool {
	switch {
	case r >= 0x4E00 && r <= 0x9FFF: // CJK Unified Ideographs, the common case
		return true
	case r >= 0x3000 && r <= 0x303F, r >= 0xFF00 && r <= 0xFFEF:
		return true
	case r < 0x1100: // below Hangul Jamo, the first CJK block
		return false
	}
	return unicode.IsOneOf(cjkTables, r)
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
