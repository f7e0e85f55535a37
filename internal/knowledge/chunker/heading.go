package chunker

import (
	"strings"
)

// headingLine renders path for a chunk's first line within a quarter of
// MaxTokens: outer headings are dropped first, then the nearest heading is
// truncated with "…". It returns "" when not even that fits, and the
// count of the line with its newline.
//
// Every section renders its own line, and sections under one long heading
// share it, so no title is read further than the quarter's worth of
// tokens requires: each candidate line is checked by a search that counts
// only prefixes no longer than about twice what fits, and whether the
// headings a section shares with the one before (those of parent) fit is
// remembered.
func (p *planner) headingLine(path []string, parent int) (string, int, error) {
	budget := p.opts.MaxTokens / 4
	if budget < 1 || len(path) == 0 {
		return "", 0, nil
	}
	fits := func(line joined) (int, bool, error) {
		sr := p.newSearch(line.prefix, line.align, budget, 0)
		sr.step, sr.hinted = 4*budget, false
		return sr.check(line.len())
	}
	if parent != p.outer.parent || len(p.outer.over) != len(path)-1 {
		p.outer.parent, p.outer.over = parent, make([]int8, len(path)-1)
	}
	for i := range path {
		if i < len(path)-1 {
			// The headings path[i:] share with the previous section come
			// first in the line: when they alone exceed the quarter, so
			// does the line.
			if p.outer.over[i] == 0 {
				_, ok, err := fits(joined{parts: path[i : len(path)-1], tail: HeadingSeparator, sep: HeadingSeparator})
				if err != nil {
					return "", 0, err
				}
				p.outer.over[i] = 2
				if !ok {
					p.outer.over[i] = 1
				}
			}
			if p.outer.over[i] == 1 {
				continue
			}
		}
		t, ok, err := fits(joined{parts: path[i:], sep: HeadingSeparator, tail: "\n"})
		if err != nil {
			return "", 0, err
		}
		if ok {
			return strings.Join(path[i:], HeadingSeparator), t, nil
		}
	}
	nearest := path[len(path)-1]
	truncated := func(n int) string { return strings.TrimSpace(nearest[:n]) + "…" }
	sr := p.newSearch(
		func(n int) string { return truncated(n) + "\n" },
		func(n int) int { return runeStartAtOrBefore(nearest, n) },
		budget, 0)
	sr.step, sr.hinted = 4*budget, false
	q := newCutQueue(nearest, 0, len(nearest), runeCuts)
	defer q.stop()
	k, t, ok, err := sr.longest(q)
	if err != nil || !ok {
		return "", 0, err
	}
	return truncated(q.at(k)), t, nil
}

// outerHeadings remembers, for the sections under one parent heading,
// whether the headings they share from path[i] on exceed the heading
// line's quarter of MaxTokens: over[i] is 0 when not known yet, 1 when
// they do and 2 when they do not.
type outerHeadings struct {
	parent int
	over   []int8
}

// joined is the text of parts joined by sep and followed by tail, made
// only as far as it is read.
type joined struct {
	parts     []string
	sep, tail string
}

// len returns the length of the text.
func (j joined) len() int {
	n := len(j.tail) + len(j.sep)*(len(j.parts)-1)
	for _, p := range j.parts {
		n += len(p)
	}
	return n
}

// segments yields the parts, separators and tail of the text in order.
func (j joined) segments(yield func(string) bool) {
	for i, p := range j.parts {
		if i > 0 && !yield(j.sep) {
			return
		}
		if !yield(p) {
			return
		}
	}
	yield(j.tail)
}

// prefix returns the first n bytes of the text.
func (j joined) prefix(n int) string {
	var b strings.Builder
	b.Grow(n)
	for seg := range j.segments {
		if b.Len()+len(seg) >= n {
			b.WriteString(seg[:n-b.Len()])
			break
		}
		b.WriteString(seg)
	}
	return b.String()
}

// align returns n moved back to the start of the rune it falls in.
func (j joined) align(n int) int {
	at := 0
	for seg := range j.segments {
		if n < at+len(seg) {
			return at + runeStartAtOrBefore(seg, n-at)
		}
		at += len(seg)
	}
	return n
}
