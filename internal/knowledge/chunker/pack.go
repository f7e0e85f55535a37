package chunker

import (
	"iter"
	"strings"
)

// pack packs units greedily into chunks, section by section: each chunk
// takes as many units as fit. Each chunk after the first of a section
// starts with the longest run of whole sentences ending the previous chunk
// that counts at most OverlapTokens and still leaves room for the next
// unit.
//
// A chunk is found by searches (see search) over the units after its
// start, so packing counts a few pieces of about a chunk's length per
// chunk, however many units a chunk holds.
func (p *planner) pack(units iter.Seq2[unit, error]) ([]piece, error) {
	next, stop := iter.Pull2(units)
	defer stop()
	w := &window{p: p, next: next}
	var out []piece
	for {
		ok, err := w.startSection()
		if err != nil || !ok {
			return out, err
		}
		if out, err = w.packSection(out); err != nil {
			return nil, err
		}
	}
}

// window holds the units of one section from the start of the chunk
// being packed to as far as its searches have read, and their text
// joined by their separators (the text chunks are made of).
type window struct {
	p    *planner
	next func() (unit, error, bool)
	// ahead is the first unit of the next section, read already.
	ahead *unit
	sec   *section
	// slots[i] is the section's unit first+i.
	slots []slot
	first int
	// ended reports that the section has no units after the slots.
	ended bool
	// joined holds the section's joined text from offset base on.
	joined *strings.Builder
	base   int
}

// slot is a unit with the offsets of its text in the joined text.
type slot struct {
	unit
	from, to int
}

// startSection starts the next section with its first unit; it reports
// false when there is none.
func (w *window) startSection() (bool, error) {
	var u unit
	if w.ahead != nil {
		u, w.ahead = *w.ahead, nil
	} else {
		var (
			err error
			ok  bool
		)
		if u, err, ok = w.next(); !ok || err != nil {
			return false, err
		}
	}
	w.sec, w.slots, w.first, w.ended = u.sec, w.slots[:0], 0, false
	w.joined, w.base = new(strings.Builder), 0
	w.push(u)
	return true, nil
}

// push appends u to the window.
func (w *window) push(u unit) {
	sep := u.sep.String() // none before a section's first unit
	from := w.base + w.joined.Len() + len(sep)
	w.joined.WriteString(sep)
	w.joined.WriteString(w.p.text(u))
	w.slots = append(w.slots, slot{unit: u, from: from, to: from + u.end - u.start})
}

// load reads units until unit i of the section is in the window, and
// reports whether it exists.
func (w *window) load(i int) (bool, error) {
	for !w.ended && w.first+len(w.slots) <= i {
		u, err, ok := w.next()
		switch {
		case !ok:
			w.ended = true
		case err != nil:
			return false, err
		case u.sec != w.sec:
			w.ahead, w.ended = &u, true
		default:
			w.push(u)
		}
	}
	return i < w.first+len(w.slots), nil
}

// slot returns unit i of the section, which must be in the window.
func (w *window) slot(i int) *slot { return &w.slots[i-w.first] }

// text returns the joined text [from, to).
func (w *window) text(from, to int) string {
	return w.joined.String()[from-w.base : to-w.base]
}

// drop forgets the units before unit a, and the text before it once that
// is most of the text held.
func (w *window) drop(a int) {
	if a <= w.first {
		return
	}
	n := copy(w.slots, w.slots[a-w.first:])
	w.slots, w.first = w.slots[:n], a
	if from := w.slots[0].from; 2*(from-w.base) > w.joined.Len() {
		rest := w.joined.String()[from-w.base:]
		w.joined = new(strings.Builder)
		w.joined.WriteString(rest)
		w.base = from
	}
}

// packSection packs the section's units into chunks appended to out.
func (w *window) packSection(out []piece) ([]piece, error) {
	a := w.first
	e, t, err := w.extend(a, a, w.slot(a).tokens)
	if err != nil {
		return nil, err
	}
	out = append(out, w.piece(a, a, e, t))
	for {
		b := e + 1
		if ok, err := w.load(b); err != nil || !ok {
			return out, err
		}
		k := b
		if w.p.opts.OverlapTokens > 0 {
			if k, err = w.overlap(a, b); err != nil {
				return nil, err
			}
		}
		if k, t, err = w.room(k, b); err != nil {
			return nil, err
		}
		if e, t, err = w.extend(k, b, t); err != nil {
			return nil, err
		}
		out = append(out, w.piece(k, b, e, t))
		a = k
		w.drop(a)
	}
}

// extend returns the last unit e >= b such that units a..e fit a chunk,
// with the count of that chunk; units a..b fit and count tokens.
func (w *window) extend(a, b, tokens int) (int, int, error) {
	from := w.slot(a).from
	sr := w.p.newSearch(
		func(n int) string { return w.sec.prefix + w.text(from, from+n) },
		func(n int) int { return runeStartAtOrBefore(w.joined.String(), from+n-w.base) + w.base - from },
		w.p.opts.MaxTokens, w.sec.prefixTokens)
	sr.fit, sr.fitTokens = w.slot(b).to-from, tokens
	i, t, ok, err := sr.longest(&unitEnds{w: w, from: from, b: b})
	if err != nil {
		return 0, 0, err
	}
	if !ok { // unreachable: units a..b are counted and fit
		i, t = 0, tokens
	}
	sr.learn()
	return b + i, t, nil
}

// overlap returns where the chunk after units a..b-1 starts its overlap:
// the first of the longest run of overlappable units ending at b-1 that
// counts at most OverlapTokens (b when there is none).
func (w *window) overlap(a, b int) (int, error) {
	m := b
	for m > a && w.slot(m-1).overlappable {
		m--
	}
	if m == b {
		return b, nil
	}
	to := w.slot(b - 1).to
	sr := w.p.newSearch(
		func(n int) string { return w.text(to-n, to) },
		w.suffixAlign(to), w.p.opts.OverlapTokens, 0)
	i, _, ok, err := sr.longest(&unitStarts{w: w, to: to, last: b - 1, first: m})
	if err != nil || !ok {
		return b, err
	}
	return b - 1 - i, nil
}

// room returns the first unit k' >= k such that units k'..b fit a chunk,
// with the count of that chunk.
func (w *window) room(k, b int) (int, int, error) {
	if k == b {
		return b, w.slot(b).tokens, nil
	}
	to := w.slot(b).to
	sr := w.p.newSearch(
		func(n int) string { return w.sec.prefix + w.text(to-n, to) },
		w.suffixAlign(to), w.p.opts.MaxTokens, w.sec.prefixTokens)
	sr.fit, sr.fitTokens = to-w.slot(b).from, w.slot(b).tokens
	i, t, ok, err := sr.longest(&unitStarts{w: w, to: to, last: b, first: k})
	if err != nil {
		return 0, 0, err
	}
	if !ok { // unreachable: unit b alone is counted and fits
		i, t = 0, w.slot(b).tokens
	}
	return b - i, t, nil
}

// suffixAlign returns the align function of the suffixes of the joined
// text ending at to: a suffix starts at a rune.
func (w *window) suffixAlign(to int) func(int) int {
	return func(n int) int {
		return to - w.base - runeStartAtOrAfter(w.joined.String(), to-n-w.base)
	}
}

// piece renders the chunk of units a..e whose units before b repeat the
// previous chunk.
func (w *window) piece(a, b, e, tokens int) piece {
	from := w.slot(a).from
	body := w.text(from, w.slot(e).to)
	var content string
	if w.sec.prefix == "" {
		content = strings.Clone(body)
	} else {
		content = w.sec.prefix + body
	}
	return piece{
		Chunk:      Chunk{Content: content, Tokens: tokens, Heading: w.sec.heading},
		section:    w.sec.index,
		bodyStart:  len(w.sec.prefix),
		freshStart: len(w.sec.prefix) + w.slot(b).from - from,
	}
}

// unitEnds are the candidates of extend: the ends of units b, b+1, … as
// lengths from from.
type unitEnds struct {
	w    *window
	from int
	b    int
}

func (c *unitEnds) fill(n int) error {
	for {
		last := c.w.first + len(c.w.slots) - 1
		if c.w.slot(last).to-c.from > n {
			return nil
		}
		if ok, err := c.w.load(last + 1); err != nil || !ok {
			return err
		}
	}
}

func (c *unitEnds) len() int { return c.w.first + len(c.w.slots) - c.b }

func (c *unitEnds) at(i int) int { return c.w.slot(c.b+i).to - c.from }

// unitStarts are the candidates of overlap and room: the starts of units
// last, last-1, …, first as lengths back from to.
type unitStarts struct {
	w               *window
	to, last, first int
}

func (c *unitStarts) fill(int) error { return nil }

func (c *unitStarts) len() int { return c.last - c.first + 1 }

func (c *unitStarts) at(i int) int { return c.to - c.w.slot(c.last-i).from }
