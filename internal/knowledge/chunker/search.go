package chunker

import (
	"math"
	"sort"
)

// search finds the longest piece of a family that fits a token limit,
// counting few pieces and none much longer than the answer.
//
// The pieces of a family are identified by their length in bytes n: the
// pieces of a prefix search are the first n bytes of one text, those of a
// suffix search its last n bytes, possibly behind a fixed heading line. A
// longer piece of a family contains the shorter ones, and the search
// assumes that it never counts fewer tokens (true of the counters Split
// is used with; a piece it returns is counted, so the limit holds
// whatever the counter does).
//
// Each count is exact, so the search interpolates: the longest piece
// counted within the limit and the shortest counted over it bracket the
// answer, and the next piece counted is the one the line between them
// (or, with no piece over the limit yet, the density of the text) puts at
// the limit; every other step bisects when interpolation did not halve
// the bracket. No piece is counted that is longer than guard(): twice the
// longest piece known to fit plus step, or twice the planner's last
// chunk-sized piece. A candidate longer than that is never counted; a
// bare prefix of the guard's length is counted first, which either shows
// that nothing longer fits or doubles the guard. The work of a search is
// thus a few times the length of its answer, whatever the length of the
// text it searches.
type search struct {
	p *planner
	// piece returns the text counted for the piece of length n.
	piece func(n int) string
	// align returns the largest length at most n that a piece may have:
	// a rune boundary.
	align func(n int) int
	// limit is the token limit; base is the count of the empty piece (the
	// heading line).
	limit, base int
	// step is the least the guard lets a piece grow by.
	step int
	// hinted lets the guard grow to twice the planner's hint.
	hinted bool
	// fit is the longest length counted within the limit and fitTokens its
	// count: 0 and base before any.
	fit, fitTokens int
	// fail is the shortest length counted over the limit and failTokens
	// its count: math.MaxInt before any.
	fail, failTokens int
}

// newSearch returns a search of the pieces given by piece and align.
func (p *planner) newSearch(piece func(int) string, align func(int) int, limit, base int) *search {
	return &search{
		p: p, piece: piece, align: align, limit: limit, base: base,
		step: p.step, hinted: true,
		fit: 0, fitTokens: base, fail: math.MaxInt,
	}
}

// candidates is an ordered list of piece lengths, read as far as a search
// needs.
type candidates interface {
	// fill reads the candidates up to length n, and the first longer one
	// when there is one.
	fill(n int) error
	// len is the number of candidates read.
	len() int
	// at is the length of candidate i; it never decreases with i.
	at(i int) int
}

// guard is the longest piece the search counts without more evidence.
func (s *search) guard() int {
	g := 2*s.fit + s.step
	if s.hinted {
		g = max(g, 2*s.p.hint)
	}
	return g
}

// probe counts the piece of length n and records the outcome.
func (s *search) probe(n int) (int, bool, error) {
	t, err := s.p.count(s.piece(n))
	if err != nil {
		return 0, false, err
	}
	if t <= s.limit {
		if n > s.fit {
			s.fit, s.fitTokens = n, t
		}
		return t, true, nil
	}
	if n < s.fail {
		s.fail, s.failTokens = n, t
	}
	return t, false, nil
}

// bare counts a bare prefix no longer than the guard, when one lies
// between fit and n, and reports whether it did.
func (s *search) bare(n int) (bool, error) {
	g := s.guard()
	if n <= g {
		return false, nil
	}
	r := s.align(g)
	if r <= s.fit || r >= n || r >= s.fail {
		return false, nil
	}
	_, _, err := s.probe(r)
	return err == nil, err
}

// check reports whether the piece of length n fits, with its count.
func (s *search) check(n int) (int, bool, error) {
	for {
		switch {
		case n >= s.fail:
			return 0, false, nil
		case n == s.fit:
			return s.fitTokens, true, nil
		case n < s.fit:
			// Known to fit; counted for its exact count.
			t, err := s.p.count(s.piece(n))
			return t, err == nil && t <= s.limit, err
		}
		if ok, err := s.bare(n); err != nil {
			return 0, false, err
		} else if ok {
			continue
		}
		return s.probe(n)
	}
}

// longest returns the last candidate whose piece fits and is not empty,
// with its count; ok is false when there is none.
func (s *search) longest(c candidates) (i, tokens int, ok bool, err error) {
	interpolated, prevWindow := false, math.MaxInt
	for {
		if err := c.fill(min(s.fail, s.guard())); err != nil {
			return 0, 0, false, err
		}
		n := c.len()
		lo := sort.Search(n, func(i int) bool { return c.at(i) > s.fit }) - 1
		hi := sort.Search(n, func(i int) bool { return c.at(i) >= s.fail })
		if lo+1 >= hi {
			return s.answer(c, lo)
		}
		var m int
		if window := hi - lo - 1; interpolated && s.fail != math.MaxInt && 2*window > prevWindow {
			m, interpolated = (lo+hi)/2, false
		} else {
			target := s.target()
			m = lo + 1 + sort.Search(hi-lo-1, func(k int) bool { return c.at(lo+1+k) > target }) - 1
			m, interpolated = max(m, lo+1), true
		}
		prevWindow = hi - lo - 1
		if ok, err := s.bare(c.at(m)); err != nil {
			return 0, 0, false, err
		} else if ok {
			continue
		}
		if _, _, err := s.probe(c.at(m)); err != nil {
			return 0, 0, false, err
		}
	}
}

// answer returns candidate lo, the last one not longer than fit, counted.
// A candidate shorter than fit fits if counts grow with length; it is
// counted all the same, and when it does not fit after all, the
// candidates before it are tried in turn.
func (s *search) answer(c candidates, lo int) (int, int, bool, error) {
	for i := lo; i >= 0 && c.at(i) > 0; i-- {
		n := c.at(i)
		if n == s.fit {
			return i, s.fitTokens, true, nil
		}
		t, err := s.p.count(s.piece(n))
		if err != nil {
			return 0, 0, false, err
		}
		if t <= s.limit {
			return i, t, true, nil
		}
	}
	return 0, 0, false, nil
}

// target estimates the length at which the pieces reach the limit: on the
// line through fit and fail, or past fit at the density of fit (or of the
// planner's last chunk when fit holds few tokens). It lies between fit
// and the guard.
func (s *search) target() int {
	g := s.guard()
	want := float64(s.limit-s.fitTokens) + 0.5
	var l float64
	switch rho := s.density(); {
	case s.fail != math.MaxInt:
		l = float64(s.fit) + want*float64(s.fail-s.fit)/float64(s.failTokens-s.fitTokens)
	case rho > 0:
		l = float64(s.fit) + want/rho
	default:
		return g
	}
	if l >= float64(g) {
		return g
	}
	return max(int(l), s.fit+1)
}

// density is the tokens per byte of fit, or of the planner's last chunk
// when fit has fewer than 16 tokens of its own; 0 when neither is known.
func (s *search) density() float64 {
	own := 0.0
	if s.fit > 0 && s.fitTokens > s.base {
		own = float64(s.fitTokens-s.base) / float64(s.fit)
	}
	if s.fitTokens-s.base < 16 && s.p.density > 0 {
		return s.p.density
	}
	return own
}

// learn keeps the bracket of a chunk-sized search as the planner's hint
// for the next one.
func (s *search) learn() {
	if s.fail == math.MaxInt || s.fit == 0 {
		return
	}
	s.p.hint = s.fit
	if s.fitTokens > s.base {
		s.p.density = float64(s.fitTokens-s.base) / float64(s.fit)
	}
}
