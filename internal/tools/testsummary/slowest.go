package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// slowestShown is how many of the slowest top-level tests Finish lists.
const slowestShown = 15

// timedTest is a top-level test that passed or failed, and how long it took.
type timedTest struct {
	pkg, test string
	elapsed   float64
}

// slowest keeps the top-level tests that took longest (subtests count
// within their parent; a parallel test's time includes its waiting).
type slowest struct{ tests []timedTest }

// add records ev, a pass or fail of a test, when it is a top-level one.
func (s *slowest) add(ev event) {
	if strings.Contains(ev.Test, "/") {
		return
	}
	s.tests = append(s.tests, timedTest{pkg: ev.Package, test: ev.Test, elapsed: ev.Elapsed})
}

// top returns at most n tests, the slowest first (ties by package and name).
func (s *slowest) top(n int) []timedTest {
	out := slices.Clone(s.tests)
	slices.SortFunc(out, func(a, b timedTest) int {
		if c := cmp.Compare(b.elapsed, a.elapsed); c != 0 {
			return c
		}
		if c := strings.Compare(a.pkg, b.pkg); c != 0 {
			return c
		}
		return strings.Compare(a.test, b.test)
	})
	return out[:min(n, len(out))]
}

// print writes the slowest tests, one a line, when there are any.
func (s *slowest) print(out io.Writer, n int) {
	top := s.top(n)
	if len(top) == 0 {
		return
	}
	fmt.Fprintf(out, "slowest tests (top %d, seconds):\n", len(top))
	for _, t := range top {
		fmt.Fprintf(out, "  %8.2f %s %s\n", t.elapsed, t.pkg, t.test)
	}
}
