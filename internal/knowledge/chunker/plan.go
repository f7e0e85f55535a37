package chunker

import (
	"context"
	"errors"
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unit is a piece of text that is never cut further: a sentence, a whole
// list item, code block or table, or a fragment of a larger one. It is the
// trimmed byte range [start, end) of the document.
type unit struct {
	sec        *section
	start, end int
	// tokens is the count of the unit behind its section's heading line.
	tokens int
	// sep joins the unit to the one before it in its section.
	sep separator
	// overlappable marks whole sentences and list items, the only units a
	// chunk may repeat from the previous one.
	overlappable bool
}

// section is what the units under one heading line share.
type section struct {
	// index counts the sections that have text, from 0.
	index   int
	heading string // the heading line, without its newline
	prefix  string // heading plus newline, or ""
	// prefixTokens is the count of prefix.
	prefixTokens int
}

// planner cuts a document into units and packs them into chunks. It reads
// the document once, front to back: a unit is made when packing needs it,
// and only the units of the chunk being packed are kept.
type planner struct {
	ctx  context.Context
	doc  string
	opts Options
	// step is the least a search lets a piece grow by (see search.guard).
	step int
	// hint is the length of the last chunk-sized piece found, and density
	// its tokens per byte: the next search starts from them.
	hint    int
	density float64
	// outer remembers which shared headings exceed a heading line.
	outer outerHeadings
}

// errStopped ends the making of units when packing reads no more.
var errStopped = errors.New("chunker: stopped")

// count counts s, or returns the context's error once it is done.
func (p *planner) count(s string) (int, error) {
	if err := p.ctx.Err(); err != nil {
		return 0, err
	}
	return p.opts.Counter.Count(s), nil
}

// text returns the text of u.
func (p *planner) text(u unit) string { return p.doc[u.start:u.end] }

// units yields the units of the blocks in order, each with its section.
func (p *planner) units(blocks iter.Seq[block]) iter.Seq2[unit, error] {
	return func(yield func(unit, error) bool) {
		var (
			sec     *section
			heading = -1
			prevEnd = -1 // the end of the section's last unit
			count   int
		)
		emit := func(u unit) error {
			u.sec = sec
			if prevEnd >= 0 {
				u.sep = separatorOf(p.doc[prevEnd:u.start])
			}
			prevEnd = u.end
			if !yield(u, nil) {
				return errStopped
			}
			return nil
		}
		fail := func(err error) {
			if !errors.Is(err, errStopped) {
				yield(unit{}, err)
			}
		}
		for b := range blocks {
			if b.section != heading {
				heading, prevEnd = b.section, -1
				s, err := p.newSection(b.path, b.parent, count)
				if err != nil {
					fail(err)
					return
				}
				sec = s
				count++
			}
			if err := p.block(sec, b, emit); err != nil {
				fail(err)
				return
			}
		}
	}
}

// newSection renders the heading line of a section.
func (p *planner) newSection(path []string, parent, index int) (*section, error) {
	h, t, err := p.headingLine(path, parent)
	if err != nil {
		return nil, err
	}
	sec := &section{index: index}
	if h != "" {
		sec.heading, sec.prefix, sec.prefixTokens = h, h+"\n", t
	}
	return sec, nil
}

// block cuts one block into units: prose into sentences, a list item,
// code block or table whole when it fits a chunk and else between
// sentences, or lines, words and characters.
func (p *planner) block(sec *section, b block, emit func(unit) error) error {
	switch b.kind {
	case listItemBlock:
		s, e := p.trim(b.start, b.end, false)
		sr := p.prefixSearch(sec, s, e)
		if t, ok, err := sr.check(e - s); err != nil || ok {
			if err != nil {
				return err
			}
			return emit(unit{start: s, end: e, tokens: t, overlappable: true})
		}
		return p.sentences(sec, s, e, emit)
	case codeBlock, tableBlock:
		s, e := p.trim(b.start, b.end, true)
		sr := p.prefixSearch(sec, s, e)
		if t, ok, err := sr.check(e - s); err != nil || ok {
			if err != nil {
				return err
			}
			return emit(unit{start: s, end: e, tokens: t})
		}
		return p.fragments(sec, s, e, true, nil, emit, lineCuts, wordCuts, runeCuts)
	default:
		return p.sentences(sec, b.start, b.end, emit)
	}
}

// sentences cuts the prose in [start, end) into sentence units; a sentence
// too long for a chunk becomes fragments.
func (p *planner) sentences(sec *section, start, end int, emit func(unit) error) error {
	from := start
	sentence := func(c int) error {
		s, e := p.trim(from, start+c, false)
		from = start + c
		if s == e {
			return nil
		}
		sr := p.prefixSearch(sec, s, e)
		t, ok, err := sr.check(e - s)
		if err != nil {
			return err
		}
		if ok {
			return emit(unit{start: s, end: e, tokens: t, overlappable: true})
		}
		return p.fragments(sec, s, e, false, sr, emit, clauseCuts, wordCuts, runeCuts)
	}
	for c := range sentenceCuts(p.doc[start:end]) {
		if err := sentence(c); err != nil {
			return err
		}
	}
	return sentence(end - start)
}

// prefixSearch returns a search of the prefixes of doc[pos:end] behind the
// section's heading line.
func (p *planner) prefixSearch(sec *section, pos, end int) *search {
	return p.newSearch(
		func(n int) string { return sec.prefix + p.doc[pos:pos+n] },
		func(n int) int { return runeStartAtOrBefore(p.doc, pos+n) - pos },
		p.opts.MaxTokens, sec.prefixTokens)
}

// runeStartAtOrBefore returns i moved back to the start of its rune.
func runeStartAtOrBefore(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// runeStartAtOrAfter returns i moved forward to the start of a rune.
func runeStartAtOrAfter(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
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

// separator is what joins two units in a chunk: the white space between
// them in the document, reduced.
type separator uint8

const (
	noSeparator separator = iota
	spaceSeparator
	lineSeparator
	paragraphSeparator
)

// String returns the text of sep.
func (sep separator) String() string {
	return [...]string{"", " ", "\n", "\n\n"}[sep]
}

// separatorOf reduces the white space between two units to what joins them
// in a chunk.
func separatorOf(gap string) separator {
	switch n := strings.Count(gap, "\n"); {
	case n >= 2:
		return paragraphSeparator
	case n == 1:
		return lineSeparator
	case gap != "":
		return spaceSeparator
	default:
		return noSeparator
	}
}
