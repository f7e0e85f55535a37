package chunker

import (
	"iter"
	"unicode"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/domain"
)

// fragments cuts [start, end) into the longest pieces that fit a chunk,
// trying the cut functions in order: the first one that yields a fitting
// piece decides each cut. code keeps the indentation of lines. first, when
// not nil, is a search of the prefixes of [start, end) already begun.
//
// Each cut function reads [start, end) once, as far as the cuts reach, and
// each piece is found by a search that counts a few pieces no longer than
// about twice the piece it finds, so the work is linear in end-start.
func (p *planner) fragments(sec *section, start, end int, code bool, first *search, emit func(unit) error, levels ...func(string) iter.Seq[int]) error {
	queues := make([]*cutQueue, len(levels))
	defer func() {
		for _, q := range queues {
			if q != nil {
				q.stop()
			}
		}
	}()
	for pos := start; ; {
		pos = p.skipLeading(pos, end, code)
		if pos >= end {
			return nil
		}
		sr := first
		if sr == nil || pos != start {
			sr = p.prefixSearch(sec, pos, end)
		}
		first = nil
		rest := p.trimEnd(pos, end) - pos
		t, ok, err := sr.check(rest)
		if err != nil {
			return err
		}
		if ok {
			return emit(unit{start: pos, end: pos + rest, tokens: t})
		}
		cut := -1
		for i, level := range levels {
			if queues[i] == nil {
				queues[i] = newCutQueue(p.doc, start, end, level)
			}
			q := queues[i]
			q.advance(pos)
			k, t, ok, err := sr.longest(q)
			if err != nil {
				return err
			}
			if ok {
				if err := emit(unit{start: pos, end: pos + q.at(k), tokens: t}); err != nil {
					return err
				}
				cut = q.cut(k)
				break
			}
		}
		sr.learn()
		if cut < 0 {
			r, _ := utf8.DecodeRuneInString(p.doc[pos:])
			return domain.Errorf(domain.CodeBadUserInput,
				"chunker: max tokens (%d) is too small: the character %q does not fit in a chunk", p.opts.MaxTokens, r)
		}
		pos = cut
	}
}

// cutQueue reads the cuts of one cut function over s[start:end] as far as
// a search asks, and keeps those after the current origin. It is a
// search's candidates: the length of a cut is that of the piece from the
// origin to the cut, trailing white space trimmed.
type cutQueue struct {
	s         string
	start     int
	next      func() (int, bool)
	stop      func()
	done      bool
	origin    int
	cuts      []cutAt // ascending, after origin
	head      int     // cuts[:head] are dropped
	lastCut   int     // the last cut read (start before any)
	lastSolid int     // its solid end
}

// cutAt is a cut and its solid end: the end of the last rune before it
// that is not white space (start when there is none).
type cutAt struct{ cut, solid int }

// newCutQueue returns the cuts of level over s[start:end], in s's offsets.
func newCutQueue(s string, start, end int, level func(string) iter.Seq[int]) *cutQueue {
	next, stop := iter.Pull(level(s[start:end]))
	return &cutQueue{s: s, start: start, next: next, stop: stop, origin: start, lastCut: start, lastSolid: start}
}

// advance drops the cuts up to pos, which becomes the origin.
func (q *cutQueue) advance(pos int) {
	q.origin = pos
	for q.head < len(q.cuts) && q.cuts[q.head].cut <= pos {
		q.head++
	}
	if q.head > 64 && 2*q.head > len(q.cuts) {
		q.cuts = append(q.cuts[:0], q.cuts[q.head:]...)
		q.head = 0
	}
}

// fill reads cuts until one is longer than n or there are no more. Of cuts
// with the same solid end only the last is kept: they cut off the same
// piece, and a search takes the last of equal ones.
func (q *cutQueue) fill(n int) error {
	for !q.done && (q.len() == 0 || q.at(q.len()-1) <= n) {
		c, ok := q.next()
		if !ok {
			q.done = true
			break
		}
		c += q.start
		solid := q.lastSolid
		for i := c; i > q.lastCut; {
			r, w := utf8.DecodeLastRuneInString(q.s[q.lastCut:i])
			if !unicode.IsSpace(r) {
				solid = i
				break
			}
			i -= w
		}
		if c > q.origin {
			if l := len(q.cuts); l > q.head && q.cuts[l-1].solid == solid {
				q.cuts[l-1].cut = c
			} else {
				q.cuts = append(q.cuts, cutAt{cut: c, solid: solid})
			}
		}
		q.lastCut, q.lastSolid = c, solid
	}
	return nil
}

func (q *cutQueue) len() int { return len(q.cuts) - q.head }

func (q *cutQueue) at(i int) int { return max(0, q.cuts[q.head+i].solid-q.origin) }

// cut returns the position of cut i.
func (q *cutQueue) cut(i int) int { return q.cuts[q.head+i].cut }
