package convsearch

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/textsearch"
)

// SnippetRunes is the length of a snippet's window, in characters.
const SnippetRunes = 120

// Range is [Start, End) in UTF-16 code units of a snippet's text.
type Range struct{ Start, End int }

// Snippet is a window of a hit's text with the matches marked.
type Snippet struct {
	Text       string
	Highlights []Range
}

// MakeSnippet returns the window of about SnippetRunes characters of text
// around its first match of terms (textsearch.Highlight), with every
// match inside the window as UTF-16 offsets into the window's text.
func MakeSnippet(text string, terms []string) Snippet {
	spans := textsearch.Highlight(text, terms)
	start := 0
	if len(spans) > 0 {
		// Start up to a third of the window before the first match.
		start = spans[0].Start
		for n := 0; start > 0 && n < SnippetRunes/3; n++ {
			_, size := utf8.DecodeLastRuneInString(text[:start])
			start -= size
		}
	}
	end, n := start, 0
	for end < len(text) && n < SnippetRunes {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
		n++
	}
	out := Snippet{Text: text[start:end], Highlights: []Range{}}
	for _, sp := range spans {
		if sp.Start < start || sp.End > end {
			continue
		}
		out.Highlights = append(out.Highlights, Range{units(text[start:sp.Start]), units(text[start:sp.End])})
	}
	return out
}

// units is the length of s in UTF-16 code units.
func units(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
