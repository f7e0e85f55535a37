package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// testKey identifies a test (or, with an empty Test, a package).
type testKey struct{ pkg, test string }

// backendCount counts the tests and subtests that ran on one backend.
type backendCount struct{ passed, failed int }

// summary consumes `go test -json` events, writes a compact log as packages
// finish, and accumulates the totals that Finish reports.
type summary struct {
	out      io.Writer
	backends []string // required backends, e.g. postgres and sqlite

	// output buffers the output of running tests and of packages; it is
	// printed only when they fail.
	output map[testKey][]string
	// running holds tests that started and have not finished yet.
	running map[testKey]bool
	// failedChild holds tests that have a failed subtest: their own failure
	// is a consequence, so their output is shown only if it says more.
	failedChild map[testKey]bool
	// buildOutput buffers compiler output per import path (Go 1.24+).
	buildOutput map[string][]string

	events                    int
	passed, failed, skipped   int
	pkgOK, pkgFailed, pkgNone int
	buildFailed               []string
	failedTests               []string
	perBackend                map[string]*backendCount
	suites                    suites
	slow                      slowest
}

func newSummary(out io.Writer, backends []string) *summary {
	s := &summary{
		out:         out,
		backends:    backends,
		output:      map[testKey][]string{},
		running:     map[testKey]bool{},
		failedChild: map[testKey]bool{},
		buildOutput: map[string][]string{},
		perBackend:  map[string]*backendCount{},
		suites:      suites{},
	}
	for _, b := range backends {
		s.perBackend[b] = &backendCount{}
	}
	return s
}

// Line processes one line of input: a JSON event, or any other text, which
// is passed through unchanged.
func (s *summary) Line(line string) {
	ev, ok := parseEvent(line)
	if !ok {
		if strings.TrimSpace(line) != "" {
			fmt.Fprint(s.out, withNewline(line))
		}
		return
	}
	s.Add(ev)
}

// Add processes one event.
func (s *summary) Add(ev event) {
	s.events++
	switch ev.Action {
	case "build-output":
		s.buildOutput[ev.ImportPath] = append(s.buildOutput[ev.ImportPath], ev.Output)
	case "build-fail":
		s.buildFailed = append(s.buildFailed, ev.ImportPath)
		fmt.Fprintf(s.out, "BUILD FAIL %s\n", ev.ImportPath)
		s.printLines(s.buildOutput[ev.ImportPath])
		delete(s.buildOutput, ev.ImportPath)
	case "run":
		s.running[testKey{ev.Package, ev.Test}] = true
	case "output":
		k := testKey{ev.Package, ev.Test}
		s.output[k] = append(s.output[k], ev.Output)
	case "pass", "fail", "skip":
		if ev.Test == "" {
			s.packageDone(ev)
		} else {
			s.testDone(ev)
		}
	}
}

func (s *summary) testDone(ev event) {
	k := testKey{ev.Package, ev.Test}
	delete(s.running, k)
	lines := s.output[k]
	delete(s.output, k)
	switch ev.Action {
	case "pass":
		s.passed++
	case "skip":
		s.skipped++
		return
	}
	s.slow.add(ev)
	switch ev.Action {
	case "fail":
		s.failed++
		for i := strings.LastIndexByte(ev.Test, '/'); i > 0; i = strings.LastIndexByte(ev.Test[:i], '/') {
			s.failedChild[testKey{ev.Package, ev.Test[:i]}] = true
		}
		if !s.failedChild[k] || hasOwnOutput(lines) {
			s.failedTests = append(s.failedTests, ev.Package+" "+ev.Test)
			fmt.Fprintf(s.out, "=== FAIL %s %s (%.2fs)\n", ev.Package, ev.Test, ev.Elapsed)
			s.printLines(lines)
		}
		delete(s.failedChild, k)
	}
	if b := backendOf(ev.Test, s.backends); b != "" {
		s.suites.add(ev, s.backends)
		if ev.Action == "pass" {
			s.perBackend[b].passed++
		} else {
			s.perBackend[b].failed++
		}
	}
}

func (s *summary) packageDone(ev event) {
	k := testKey{ev.Package, ""}
	lines := s.output[k]
	delete(s.output, k)
	switch ev.Action {
	case "skip":
		s.pkgNone++
	case "pass":
		s.pkgOK++
		fmt.Fprintf(s.out, "ok   %s %.2fs\n", ev.Package, ev.Elapsed)
	case "fail":
		s.pkgFailed++
		note := ""
		if ev.FailedBuild != "" {
			note = " [build failed]"
			if !slices.Contains(s.buildFailed, ev.FailedBuild) {
				s.buildFailed = append(s.buildFailed, ev.FailedBuild)
			}
			s.printLines(s.buildOutput[ev.FailedBuild])
			delete(s.buildOutput, ev.FailedBuild)
		}
		fmt.Fprintf(s.out, "FAIL %s %.2fs%s\n", ev.Package, ev.Elapsed, note)
		// Tests still running when the package failed (a panic, a timeout,
		// os.Exit) get no result of their own: show their output too.
		for _, rk := range s.unfinished(ev.Package) {
			s.failed++
			s.failedTests = append(s.failedTests, rk.pkg+" "+rk.test+" (did not finish)")
			fmt.Fprintf(s.out, "=== DID NOT FINISH %s %s\n", rk.pkg, rk.test)
			s.printLines(s.output[rk])
		}
		s.printLines(slices.DeleteFunc(lines, isResultLine))
	}
	for _, rk := range s.unfinished(ev.Package) {
		delete(s.running, rk)
		delete(s.output, rk)
	}
	for fk := range s.failedChild {
		if fk.pkg == ev.Package {
			delete(s.failedChild, fk)
		}
	}
}

// hasOwnOutput reports whether a test printed more than its progress lines
// and its "--- FAIL" line.
func hasOwnOutput(lines []string) bool {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t != "" && !strings.HasPrefix(t, "=== ") && !strings.HasPrefix(t, "--- FAIL: ") {
			return true
		}
	}
	return false
}

// isResultLine reports whether a package-level line only repeats the
// package result ("PASS", "FAIL", "ok  \tpkg\t1.2s", "FAIL\tpkg\t1.2s").
func isResultLine(l string) bool {
	t := strings.TrimSpace(l)
	return t == "PASS" || t == "FAIL" || strings.HasPrefix(l, "ok  \t") || strings.HasPrefix(l, "FAIL\t")
}

// unfinished returns the package's tests that started and did not end,
// sorted by name.
func (s *summary) unfinished(pkg string) []testKey {
	var ks []testKey
	for k := range s.running {
		if k.pkg == pkg {
			ks = append(ks, k)
		}
	}
	slices.SortFunc(ks, func(a, b testKey) int { return strings.Compare(a.test, b.test) })
	return ks
}

// printLines prints buffered output, indented, without the === RUN/PAUSE/
// CONT/NAME progress lines.
func (s *summary) printLines(lines []string) {
	for _, l := range lines {
		if strings.HasPrefix(l, "=== ") {
			continue
		}
		if strings.TrimSpace(l) == "" {
			fmt.Fprintln(s.out)
			continue
		}
		fmt.Fprint(s.out, "    "+withNewline(l))
	}
}

// Finish prints the totals and reports whether everything passed. It also
// fails when the input held no test results or a required backend ran no
// test at all.
func (s *summary) Finish() bool {
	var problems []string
	if s.pkgFailed > 0 {
		problems = append(problems, fmt.Sprintf("%d package(s) failed", s.pkgFailed))
	}
	if s.failed > 0 {
		problems = append(problems, fmt.Sprintf("%d test(s) failed", s.failed))
	}
	if len(s.buildFailed) > 0 {
		problems = append(problems, "build failed: "+strings.Join(s.buildFailed, ", "))
	}
	if s.events == 0 {
		problems = append(problems, "no `go test -json` events in the input")
	}
	fmt.Fprintln(s.out, strings.Repeat("-", 72))
	fmt.Fprintf(s.out, "packages: %d ok, %d failed, %d without test files\n", s.pkgOK, s.pkgFailed, s.pkgNone)
	fmt.Fprintf(s.out, "tests:    %d passed, %d failed, %d skipped (subtests included)\n", s.passed, s.failed, s.skipped)
	if len(s.backends) > 0 {
		parts := make([]string, 0, len(s.backends))
		for _, b := range s.backends {
			c := s.perBackend[b]
			part := fmt.Sprintf("%s=%d passed", b, c.passed)
			if c.failed > 0 {
				part += fmt.Sprintf(" (%d failed)", c.failed)
			}
			parts = append(parts, part)
			if c.passed+c.failed == 0 {
				problems = append(problems, fmt.Sprintf("no %s suite ran (no test name has a %q path element)", backendTitle(b), b))
			}
		}
		fmt.Fprintf(s.out, "backend suites: %s\n", strings.Join(parts, ", "))
	}
	s.slow.print(s.out, slowestShown)
	if len(s.failedTests) > 0 {
		fmt.Fprintln(s.out, "failed tests:")
		for _, name := range s.failedTests {
			fmt.Fprintln(s.out, "  "+name)
		}
	}
	if len(problems) > 0 {
		fmt.Fprintf(s.out, "FAIL: %s\n", strings.Join(problems, "; "))
		return false
	}
	fmt.Fprintln(s.out, "PASS")
	return true
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
