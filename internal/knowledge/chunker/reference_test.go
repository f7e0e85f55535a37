package chunker

// This file keeps the chunker as it was before it was made linear
// (commit e479ef3), renamed, as a reference: with a counter whose counts
// grow with the text (the test counters), Split must give exactly the
// chunks it gives. Heading titles collapse runs of blanks in both.

import (
	"iter"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/domain"
)

// refCollect turns a cut function back into one returning a slice.
func refCollect(f func(string) iter.Seq[int]) func(string) []int {
	return func(s string) []int { return slices.Collect(f(s)) }
}

// refSplit is split as it was.
func refSplit(text string, opts Options) ([]piece, error) {
	opts, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	doc := Normalize(text)
	var out []piece
	for si, sec := range refParseMarkdown(doc) {
		p := &refPlanner{doc: doc, opts: opts}
		p.heading = p.headingLine(sec.path)
		if p.heading != "" {
			p.prefix = p.heading + "\n"
		}
		units, err := p.units(sec.blocks)
		if err != nil {
			return nil, err
		}
		for _, pc := range p.pack(units) {
			pc.Ordinal = len(out)
			pc.section = si
			out = append(out, pc)
		}
	}
	return out, nil
}

// refSection is a section as refParseMarkdown returns it.
type refSection struct {
	path   []string
	blocks []block
}

// refLine is the byte range [start, end) of one line, without its newline.
type refLine struct{ start, end int }

// refUnit is a piece of text that is never cut further: a sentence, a whole
// list item, code block or table, or a fragment of a larger one. It is the
// trimmed byte range [start, end) of the document.
type refUnit struct {
	start, end int
	// sep joins the unit to the one before it: the white space between them
	// in the document, reduced to "", " ", "\n" or "\n\n".
	sep string
	// overlappable marks whole sentences and list items, the only units a
	// chunk may repeat from the previous one.
	overlappable bool
}

// refPlanner cuts and packs one section.
type refPlanner struct {
	doc     string
	opts    Options
	heading string // the heading refLine, without its newline
	prefix  string // heading plus newline, or ""
}

// count counts s.
func (p *refPlanner) count(s string) int { return p.opts.Counter.Count(s) }

// fits reports whether a chunk with this body stays within MaxTokens.
func (p *refPlanner) fits(body string) bool { return p.count(p.prefix+body) <= p.opts.MaxTokens }

// text returns the text of u.
func (p *refPlanner) text(u refUnit) string { return p.doc[u.start:u.end] }

// join returns the text of units[from:to] joined by their separators.
func (p *refPlanner) join(units []refUnit, from, to int) string {
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
func (p *refPlanner) headingLine(path []string) string {
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
func (p *refPlanner) units(blocks []block) ([]refUnit, error) {
	var units []refUnit
	add := func(more []refUnit, err error) error {
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
				units = append(units, refUnit{start: s, end: e, overlappable: true})
			} else {
				err = add(p.sentences(s, e))
			}
		case codeBlock, tableBlock:
			s, e := p.trim(b.start, b.end, true)
			if p.fits(p.doc[s:e]) {
				units = append(units, refUnit{start: s, end: e})
			} else {
				err = add(p.fragments(s, e, true, lineCuts, wordCuts, runeCuts))
			}
		}
		if err != nil {
			return nil, err
		}
	}
	for i := 1; i < len(units); i++ {
		units[i].sep = refSeparatorOf(p.doc[units[i-1].end:units[i].start])
	}
	return units, nil
}

// sentences cuts the prose in [start, end) into sentence units; a sentence
// too long for a chunk becomes fragments.
func (p *refPlanner) sentences(start, end int) ([]refUnit, error) {
	var units []refUnit
	from := start
	for _, c := range append(refCollect(sentenceCuts)(p.doc[start:end]), end-start) {
		s, e := p.trim(from, start+c, false)
		from = start + c
		if s == e {
			continue
		}
		if p.fits(p.doc[s:e]) {
			units = append(units, refUnit{start: s, end: e, overlappable: true})
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
func (p *refPlanner) fragments(start, end int, code bool, levels ...func(string) iter.Seq[int]) ([]refUnit, error) {
	cuts := make([][]int, len(levels)) // absolute offsets, computed lazily
	var units []refUnit
	for pos := start; ; {
		pos = p.skipLeading(pos, end, code)
		if pos >= end {
			return units, nil
		}
		if e := p.trimEnd(pos, end); p.fits(p.doc[pos:e]) {
			return append(units, refUnit{start: pos, end: e}), nil
		}
		cut := -1
		for i, level := range levels {
			if cuts[i] == nil {
				cuts[i] = slices.Collect(level(p.doc[start:end]))
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
		units = append(units, refUnit{start: pos, end: p.trimEnd(pos, cut)})
		pos = cut
	}
}

// longestFit returns the last of cuts after pos whose piece from pos fits a
// chunk and is not blank. It assumes that a longer piece never counts fewer
// tokens, and verifies the piece it returns.
func (p *refPlanner) longestFit(pos int, cuts []int) (int, bool) {
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
func (p *refPlanner) trim(start, end int, code bool) (int, int) {
	s := p.skipLeading(start, end, code)
	return s, max(s, p.trimEnd(s, end))
}

// skipLeading skips white space from pos. With code it stops after the last
// line break before the text, keeping that line's indentation.
func (p *refPlanner) skipLeading(pos, end int, code bool) int {
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
func (p *refPlanner) trimEnd(start, end int) int {
	return start + len(strings.TrimRightFunc(p.doc[start:end], unicode.IsSpace))
}

// refSeparatorOf reduces the white space between two units to what joins them
// in a chunk.
func refSeparatorOf(gap string) string {
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

// pack packs units greedily into chunks. Each chunk after the first starts
// with the longest run of whole sentences ending the previous chunk that
// counts at most OverlapTokens and still leaves room for the next unit.
func (p *refPlanner) pack(units []refUnit) []piece {
	if len(units) == 0 {
		return nil
	}
	var out []piece
	a, overlap := 0, 0 // the chunk is units[a:b]; units[a:a+overlap] repeat
	body := p.text(units[0])
	for b := 1; b < len(units); b++ {
		if next := body + units[b].sep + p.text(units[b]); p.fits(next) {
			body = next
			continue
		}
		out = append(out, p.piece(units, a, overlap, body))
		k := b
		if p.opts.OverlapTokens > 0 {
			for k > a && units[k-1].overlappable && p.count(p.join(units, k-1, b)) <= p.opts.OverlapTokens {
				k--
			}
			for k < b && !p.fits(p.join(units, k, b+1)) {
				k++
			}
		}
		a, overlap = k, b-k
		body = p.join(units, a, b+1)
	}
	return append(out, p.piece(units, a, overlap, body))
}

// piece renders a chunk whose body starts with units[a] and whose first
// overlap units repeat the previous chunk.
func (p *refPlanner) piece(units []refUnit, a, overlap int, body string) piece {
	content := p.prefix + body
	fresh := len(p.prefix)
	if overlap > 0 {
		fresh += len(p.join(units, a, a+overlap)) + len(units[a+overlap].sep)
	}
	return piece{
		Chunk:      Chunk{Content: content, Tokens: p.count(content), Heading: p.heading},
		bodyStart:  len(p.prefix),
		freshStart: fresh,
	}
}

// refParseMarkdown splits doc into sections of blocks. It understands ATX
// headings ("## Title"), fenced code blocks (``` or ~~~), pipe tables with
// a delimiter row and list items; everything else is paragraphs. Headings
// inside code fences are code.
func refParseMarkdown(doc string) []refSection {
	lines := refSplitLines(doc)
	text := func(i int) string { return doc[lines[i].start:lines[i].end] }
	blank := func(i int) bool { return strings.TrimSpace(text(i)) == "" }
	tableAt := func(i int) bool {
		return i+1 < len(lines) && strings.Contains(text(i), "|") && isDelimiterRow(text(i+1))
	}
	// interrupts reports whether line i starts a block that ends a
	// paragraph or list item.
	interrupts := func(i int) bool {
		_, _, heading := atxHeading(text(i))
		_, fence := openFence(text(i))
		return blank(i) || heading || fence || isListItem(text(i)) || tableAt(i)
	}

	var (
		sections []refSection
		cur      refSection
		stack    []headingLevel
	)
	add := func(kind blockKind, from, to int) {
		cur.blocks = append(cur.blocks, block{kind: kind, start: lines[from].start, end: lines[to].end})
	}
	for i := 0; i < len(lines); {
		l := text(i)
		if blank(i) {
			i++
			continue
		}
		if level, title, ok := atxHeading(l); ok {
			if len(cur.blocks) > 0 {
				sections = append(sections, cur)
			}
			for len(stack) > 0 && stack[len(stack)-1].level >= level {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, headingLevel{level: level, title: collapseBlanks(title)})
			path, _ := headingPath(stack)
			cur = refSection{path: path}
			i++
			continue
		}
		if f, ok := openFence(l); ok {
			j := i + 1
			for j < len(lines) && !f.closedBy(text(j)) {
				j++
			}
			last := min(j, len(lines)-1)
			add(codeBlock, i, last)
			i = last + 1
			continue
		}
		if tableAt(i) {
			j := i + 2
			for j < len(lines) && !blank(j) && strings.Contains(text(j), "|") && !interrupts(j) {
				j++
			}
			add(tableBlock, i, j-1)
			i = j
			continue
		}
		kind := paragraphBlock
		if isListItem(l) {
			kind = listItemBlock
		}
		j := i + 1
		for j < len(lines) && !interrupts(j) {
			j++
		}
		add(kind, i, j-1)
		i = j
	}
	if len(cur.blocks) > 0 {
		sections = append(sections, cur)
	}
	return sections
}

// refSplitLines returns the lines of doc.
func refSplitLines(doc string) []refLine {
	var lines []refLine
	start := 0
	for start <= len(doc) {
		i := strings.IndexByte(doc[start:], '\n')
		if i < 0 {
			lines = append(lines, refLine{start, len(doc)})
			break
		}
		lines = append(lines, refLine{start, start + i})
		start += i + 1
	}
	return lines
}
