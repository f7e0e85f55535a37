package chunker

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/domain"
)

// unit is a piece of text that is never cut further: a sentence, a whole
// list item, code block or table, or a fragment of a larger one. It is the
// trimmed byte range [start, end) of the document.
type unit struct {
	start, end int
	// sep joins the unit to the one before it: the white space between them
	// in the document, reduced to "", " ", "\n" or "\n\n".
	sep string
	// overlappable marks whole sentences and list items, the only units a
	// chunk may repeat from the previous one.
	overlappable bool
}

// planner cuts and packs one section.
type planner struct {
	doc     string
	opts    Options
	heading string // the heading line, without its newline
	prefix  string // heading plus newline, or ""
}

// count counts s.
func (p *planner) count(s string) int { return p.opts.Counter.Count(s) }

// fits reports whether a chunk with this body stays within MaxTokens.
func (p *planner) fits(body string) bool { return p.count(p.prefix+body) <= p.opts.MaxTokens }

// text returns the text of u.
func (p *planner) text(u unit) string { return p.doc[u.start:u.end] }

// join returns the text of units[from:to] joined by their separators.
func (p *planner) join(units []unit, from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		if i > from {
			b.WriteString(units[i].sep)
		}
		b.WriteString(p.text(units[i]))
	}
	return b.String()
}

// headingLine renders path for a chunk's first line within a quarter of
// MaxTokens: outer headings are dropped first, then the nearest heading is
// truncated with "…". It returns "" when not even that fits.
func (p *planner) headingLine(path []string) string {
	budget := p.opts.MaxTokens / 4
	if budget < 1 || len(path) == 0 {
		return ""
	}
	fits := func(h string) bool { return p.count(h+"\n") <= budget }
	for i := range path {
		if h := strings.Join(path[i:], HeadingSeparator); fits(h) {
			return h
		}
	}
	nearest := []rune(path[len(path)-1])
	truncated := func(n int) string { return strings.TrimSpace(string(nearest[:n])) + "…" }
	n := sort.Search(len(nearest)+1, func(n int) bool { return !fits(truncated(n)) }) - 1
	if n < 1 || strings.TrimSpace(string(nearest[:n])) == "" {
		return ""
	}
	return truncated(n)
}

// units cuts the blocks of a section into units that each fit a chunk on
// their own, and links them with their separators.
func (p *planner) units(blocks []block) ([]unit, error) {
	var units []unit
	add := func(more []unit, err error) error {
		units = append(units, more...)
		return err
	}
	for _, b := range blocks {
		var err error
		switch b.kind {
		case paragraphBlock:
			err = add(p.sentences(b.start, b.end))
		case listItemBlock:
			s, e := p.trim(b.start, b.end, false)
			if p.fits(p.doc[s:e]) {
				units = append(units, unit{start: s, end: e, overlappable: true})
			} else {
				err = add(p.sentences(s, e))
			}
		case codeBlock, tableBlock:
			s, e := p.trim(b.start, b.end, true)
			if p.fits(p.doc[s:e]) {
				units = append(units, unit{start: s, end: e})
			} else {
				err = add(p.fragments(s, e, true, lineCuts, wordCuts, runeCuts))
			}
		}
		if err != nil {
			return nil, err
		}
	}
	for i := 1; i < len(units); i++ {
		units[i].sep = separator(p.doc[units[i-1].end:units[i].start])
	}
	return units, nil
}

// sentences cuts the prose in [start, end) into sentence units; a sentence
// too long for a chunk becomes fragments.
func (p *planner) sentences(start, end int) ([]unit, error) {
	var units []unit
	from := start
	for _, c := range append(sentenceCuts(p.doc[start:end]), end-start) {
		s, e := p.trim(from, start+c, false)
		from = start + c
		if s == e {
			continue
		}
		if p.fits(p.doc[s:e]) {
			units = append(units, unit{start: s, end: e, overlappable: true})
			continue
		}
		more, err := p.fragments(s, e, false, clauseCuts, wordCuts, runeCuts)
		if err != nil {
			return nil, err
		}
		units = append(units, more...)
	}
	return units, nil
}

// fragments cuts [start, end) into the longest pieces that fit a chunk,
// trying the cut functions in order: the first one that yields a fitting
// piece decides each cut. code keeps the indentation of lines.
func (p *planner) fragments(start, end int, code bool, levels ...func(string) []int) ([]unit, error) {
	cuts := make([][]int, len(levels)) // absolute offsets, computed lazily
	var units []unit
	for pos := start; ; {
		pos = p.skipLeading(pos, end, code)
		if pos >= end {
			return units, nil
		}
		if e := p.trimEnd(pos, end); p.fits(p.doc[pos:e]) {
			return append(units, unit{start: pos, end: e}), nil
		}
		cut := -1
		for i, level := range levels {
			if cuts[i] == nil {
				cuts[i] = level(p.doc[start:end])
				for j := range cuts[i] {
					cuts[i][j] += start
				}
			}
			if c, ok := p.longestFit(pos, cuts[i]); ok {
				cut = c
				break
			}
		}
		if cut < 0 {
			r, _ := utf8.DecodeRuneInString(p.doc[pos:])
			return nil, domain.Errorf(domain.CodeBadUserInput,
				"chunker: max tokens (%d) is too small: the character %q does not fit in a chunk", p.opts.MaxTokens, r)
		}
		units = append(units, unit{start: pos, end: p.trimEnd(pos, cut)})
		pos = cut
	}
}

// longestFit returns the last of cuts after pos whose piece from pos fits a
// chunk and is not blank. It assumes that a longer piece never counts fewer
// tokens, and verifies the piece it returns.
func (p *planner) longestFit(pos int, cuts []int) (int, bool) {
	cands := cuts[sort.SearchInts(cuts, pos+1):]
	k := sort.Search(len(cands), func(k int) bool {
		return !p.fits(p.doc[pos:p.trimEnd(pos, cands[k])])
	})
	if k == 0 {
		return 0, false
	}
	c := cands[k-1]
	piece := p.doc[pos:p.trimEnd(pos, c)]
	if strings.TrimSpace(piece) == "" || !p.fits(piece) {
		return 0, false
	}
	return c, true
}

// trim returns [start, end) without leading and trailing white space; with
// code, a partly indented first line keeps its indentation.
func (p *planner) trim(start, end int, code bool) (int, int) {
	s := p.skipLeading(start, end, code)
	return s, max(s, p.trimEnd(s, end))
}

// skipLeading skips white space from pos. With code it stops after the last
// line break before the text, keeping that line's indentation.
func (p *planner) skipLeading(pos, end int, code bool) int {
	lineStart := -1
	i := pos
	for i < end {
		r, w := utf8.DecodeRuneInString(p.doc[i:end])
		if !unicode.IsSpace(r) {
			break
		}
		if r == '\n' {
			lineStart = i + 1
		}
		i += w
	}
	if code && lineStart >= 0 && i < end {
		return lineStart
	}
	return i
}

// trimEnd returns end moved back over trailing white space, not before
// start.
func (p *planner) trimEnd(start, end int) int {
	return start + len(strings.TrimRightFunc(p.doc[start:end], unicode.IsSpace))
}

// separator reduces the white space between two units to what joins them
// in a chunk.
func separator(gap string) string {
	switch n := strings.Count(gap, "\n"); {
	case n >= 2:
		return "\n\n"
	case n == 1:
		return "\n"
	case gap != "":
		return " "
	default:
		return ""
	}
}
