package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// suites records the backend suites of a run: the top-level tests that had
// a subtest on one of the backends, per package.
type suites map[string]map[string]bool

// add records ev's top-level test when ev is a test on a backend.
func (s suites) add(ev event, backends []string) {
	if ev.Test == "" || backendOf(ev.Test, backends) == "" {
		return
	}
	top, _, _ := strings.Cut(ev.Test, "/")
	if s[ev.Package] == nil {
		s[ev.Package] = map[string]bool{}
	}
	s[ev.Package][top] = true
}

// write writes one "package test" line per suite, sorted. scripts/test.sh
// reads it to run the same suites on the other backend.
func (s suites) write(w io.Writer) error {
	var lines []string
	for pkg, tests := range s {
		for test := range tests {
			lines = append(lines, pkg+" "+test)
		}
	}
	slices.Sort(lines)
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}
