// Command testsummary turns `go test -json` output into a compact log.
//
// It reads the JSON stream on stdin and writes, as packages finish, one
// ok/FAIL line per package with its elapsed time and the full output of
// every failing test. At the end it prints totals and the number of tests
// and subtests that ran on each database backend, counted by test names
// that have a path element exactly equal to the backend name (for example
// TestPrivacy/postgres/cross_tenant_read):
//
//	backend suites: postgres=123 passed, sqlite=120 passed
//
// It exits with status 1 when a test or package failed, a build failed, the
// input held no test events, or a required backend ran no test at all (so a
// silently skipped PostgreSQL suite fails the run). Lines that are not JSON
// events are copied through.
//
// Usage:
//
//	go test -json ./... 2>&1 | go run ./internal/tools/testsummary [-backends postgres,sqlite] [-suites FILE]
//
// With -suites it also writes the backend suites that ran, one "package
// test" line each: scripts/test.sh runs the tests of a PostgreSQL pass
// named there again on SQLite.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	backends := flag.String("backends", "postgres,sqlite",
		"comma-separated backends that must each run at least one test (empty: none)")
	suitesOut := flag.String("suites", "",
		"write the backend suites (\"package test\" per line: the top-level tests with a subtest on a backend) to this file")
	flag.Parse()
	ok, found, err := run(os.Stdin, os.Stdout, splitList(*backends))
	if err == nil && *suitesOut != "" {
		err = writeSuites(*suitesOut, found)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

// run summarizes the `go test -json` stream in, writing to out, and reports
// whether everything passed and which backend suites ran.
func run(in io.Reader, out io.Writer, backends []string) (bool, suites, error) {
	w := bufio.NewWriter(out)
	s := newSummary(w, backends)
	r := bufio.NewReaderSize(in, 64*1024)
	for {
		line, err := r.ReadString('\n')
		if line != "" {
			s.Line(line)
			// Flush per line so the log streams while tests run.
			if ferr := w.Flush(); ferr != nil {
				return false, nil, ferr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return false, nil, err
		}
	}
	ok := s.Finish()
	return ok, s.suites, w.Flush()
}

// writeSuites writes found to the file at path.
func writeSuites(path string, found suites) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := found.write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func splitList(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
