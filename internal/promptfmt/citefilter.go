package promptfmt

import "strings"

// maxLabelDigits bounds the number in a citation label ("[C12]"): a longer
// run of digits is text, not a label, so a stream never holds back more
// than a few bytes.
const maxLabelDigits = 6

// CitationFilter removes, from an answer that arrives in pieces, every
// citation label ("[Cn]") whose label is not in known, the way
// StripUnknownCitations does for a whole answer: the pieces it returns,
// concatenated, are exactly StripUnknownCitations of the concatenated
// input, wherever the pieces were cut ("[C" + "7]" included). To decide, it
// holds back the beginning of a possible label ("[", "[C", "[C1") until the
// piece that ends or breaks it; Flush returns what is still held when the
// answer ends. Labels are ASCII, so a cut never falls inside a held UTF-8
// character.
type CitationFilter struct {
	known   map[string]bool
	held    []byte // "" or "[", "[C", "[C" + digits
	removed int
}

// NewCitationFilter returns a filter that keeps the labels in known.
func NewCitationFilter(known map[string]bool) *CitationFilter {
	return &CitationFilter{known: known}
}

// Push takes the next piece of the answer and returns the text that can be
// passed on now (possibly "").
func (f *CitationFilter) Push(piece string) string {
	var out strings.Builder
	for i := 0; i < len(piece); i++ {
		f.step(&out, piece[i])
	}
	return out.String()
}

// Flush ends the answer and returns the text still held (an unfinished
// label is text).
func (f *CitationFilter) Flush() string {
	s := string(f.held)
	f.held = f.held[:0]
	return s
}

// Removed reports how many labels the filter removed.
func (f *CitationFilter) Removed() int { return f.removed }

// step feeds one byte.
func (f *CitationFilter) step(out *strings.Builder, c byte) {
	switch {
	case len(f.held) == 0:
	case len(f.held) == 1 && c == 'C':
		f.held = append(f.held, c)
		return
	case len(f.held) >= 2 && c >= '0' && c <= '9' && len(f.held) < 2+maxLabelDigits:
		f.held = append(f.held, c)
		return
	case len(f.held) >= 3 && c == ']':
		label := string(f.held[1:])
		if f.known[label] {
			out.Write(f.held)
			out.WriteByte(c)
		} else {
			f.removed++
		}
		f.held = f.held[:0]
		return
	default:
		// Not a label after all: what was held is text, and c starts
		// afresh.
		out.Write(f.held)
		f.held = f.held[:0]
	}
	if c == '[' {
		f.held = append(f.held, c)
		return
	}
	out.WriteByte(c)
}
