package chunker

import (
	"strings"
	"unicode"
)

// Normalize returns text as Split reads it: invalid UTF-8 replaced by
// U+FFFD, a leading byte-order mark removed, "\r\n", lone "\r" and the
// Unicode line and paragraph separators turned into "\n", and control
// characters other than tab and newline (NUL included, which PostgreSQL
// text cannot store) removed.
func Normalize(text string) string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	text = strings.TrimPrefix(text, "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	clean := true
	for _, r := range text {
		if needsRewrite(r) {
			clean = false
			break
		}
	}
	if clean {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text {
		switch {
		case r == '\r' || r == '\u2028' || r == '\u2029':
			b.WriteByte('\n')
		case needsRewrite(r):
			// A control character: drop it.
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// needsRewrite reports whether Normalize changes r.
func needsRewrite(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}
