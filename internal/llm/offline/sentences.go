package offline

import (
	"strings"
	"unicode"
)

// splitSentences splits text into sentences at Chinese 。！？；, English
// . ! ? ; followed by a space or the end, and line breaks. Each sentence
// keeps its terminator; list markers and surrounding space are trimmed.
func splitSentences(s string) []string {
	rs := []rune(s)
	var out []string
	start := 0
	emit := func(end int) {
		t := strings.TrimSpace(string(rs[start:end]))
		t = strings.TrimLeft(t, "-*•·>#|")
		t = strings.TrimSpace(t)
		if t != "" {
			out = append(out, t)
		}
		start = end
	}
	for i, r := range rs {
		switch {
		case r == '\n':
			emit(i + 1)
		case strings.ContainsRune("。！？；", r):
			emit(i + 1)
		case strings.ContainsRune(".!?;", r) && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])):
			emit(i + 1)
		}
	}
	emit(len(rs))
	return out
}

// isWide reports whether r streams as a token of its own: CJK ideographs,
// kana, hangul and full-width punctuation.
func isWide(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF) ||
		r == '“' || r == '”' || r == '‘' || r == '’' || r == '…' || r == '—'
}

// pieces splits an answer into stream tokens: one rune for wide (CJK)
// runes, one word with its trailing spaces for everything else. The pieces
// concatenate back to s.
func pieces(s string) []string {
	var out []string
	var cur []rune
	hasText := func() bool {
		for _, r := range cur {
			if !unicode.IsSpace(r) {
				return true
			}
		}
		return false
	}
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range s {
		switch {
		case isWide(r):
			if hasText() {
				flush()
			}
			cur = append(cur, r)
			flush()
		case unicode.IsSpace(r):
			cur = append(cur, r)
		default:
			if len(cur) > 0 && unicode.IsSpace(cur[len(cur)-1]) && hasText() {
				flush()
			}
			cur = append(cur, r)
		}
	}
	flush()
	return out
}
