package attachment

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// errTextFull is returned by the text budget once it holds its bound: the
// extraction stops there and keeps what it has (Extraction.Truncated).
var errTextFull = errors.New("attachment: the text bound is reached")

// textBudget collects a file's text up to max bytes of UTF-8. What it is
// given is cleaned as it is written: invalid UTF-8 becomes U+FFFD and
// control characters other than tab and line breaks are dropped (a PDF
// font without a Unicode map yields its raw codes; PostgreSQL refuses
// NUL). The text never grows past max, so a file that expands (a
// compressed PDF, a DOCX) cannot make it larger than the bound.
type textBudget struct {
	b    strings.Builder
	max  int
	full bool
}

func newTextBudget(max int) *textBudget { return &textBudget{max: max} }

// WriteString appends s, cleaned, and returns errTextFull once the bound
// is reached (what fits of s is kept, cut at a character boundary).
func (t *textBudget) WriteString(s string) error {
	for len(s) > 0 {
		if t.full {
			return errTextFull
		}
		if n := cleanPrefix(s); n > 0 {
			t.write(s[:n])
			s = s[n:]
			continue
		}
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		if r == utf8.RuneError {
			t.write("\uFFFD")
		} // else a control character, dropped
	}
	if t.full {
		return errTextFull
	}
	return nil
}

// write appends clean text, as much of it as the bound allows.
func (t *textBudget) write(s string) {
	room := t.max - t.b.Len()
	if len(s) > room {
		for room > 0 && !utf8.RuneStart(s[room]) {
			room--
		}
		s = s[:room]
		t.full = true
	}
	t.b.WriteString(s)
}

// cleanPrefix returns the length of the longest prefix of s that is valid
// UTF-8 without control characters other than tab, CR and LF.
func cleanPrefix(s string) int {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return i
}

// separate appends the ASCII separator c (a space or a line break) unless
// the text is empty or already ends with c or a line break.
func (t *textBudget) separate(c byte) error {
	n := t.b.Len()
	if n == 0 {
		return nil
	}
	if last := t.b.String()[n-1]; last == c || last == '\n' {
		return nil
	}
	return t.WriteString(string(c))
}

// Len is the number of bytes held.
func (t *textBudget) Len() int { return t.b.Len() }

// String returns the text held.
func (t *textBudget) String() string { return t.b.String() }

// paragraph ends the text with a blank line (a paragraph break for the
// chunker) unless it is empty or already does.
func (t *textBudget) paragraph() error {
	s := t.b.String()
	switch {
	case s == "", strings.HasSuffix(s, "\n\n"):
		return nil
	case strings.HasSuffix(s, "\n"):
		return t.WriteString("\n")
	}
	return t.WriteString("\n\n")
}
