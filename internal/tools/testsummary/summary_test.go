package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The testdata files are real `go test -json` output (Go 1.26) of a small
// module with passing, failing, panicking, skipped, timed-out and
// non-compiling tests.

func TestRunFixtures(t *testing.T) {
	tests := []struct {
		file    string
		wantOK  bool
		want    []string // substrings of the output, in order
		notWant []string
	}{
		{
			file:   "pass.json",
			wantOK: true,
			want: []string{
				"ok   example.com/fix/good",
				"packages: 1 ok, 0 failed, 1 without test files",
				"tests:    7 passed, 0 failed, 1 skipped",
				"backend suites: postgres=3 passed, sqlite=3 passed",
				"PASS",
			},
			notWant: []string{"FAIL"},
		},
		{
			file: "mixed.json",
			want: []string{
				"BUILD FAIL example.com/fix/broken [example.com/fix/broken.test]",
				"broken_test.go:5:28: undefined: undefinedThing",
				"=== FAIL example.com/fix/bad TestPrivacy/postgres",
				"bad_test.go:10: tenant B saw tenant A's row",
				"FAIL example.com/fix/bad",
				"FAIL example.com/fix/broken 0.00s [build failed]",
				"ok   example.com/fix/good",
				"=== FAIL example.com/fix/panics TestBoom",
				"panic: assignment to entry in nil map",
				"packages: 1 ok, 3 failed, 1 without test files",
				"tests:    9 passed, 3 failed, 1 skipped",
				"backend suites: postgres=3 passed (1 failed), sqlite=4 passed",
				"failed tests:\n  example.com/fix/bad TestPrivacy/postgres\n  example.com/fix/panics TestBoom\n",
				"FAIL: 3 package(s) failed; 3 test(s) failed; build failed: example.com/fix/broken",
			},
			notWant: []string{
				"=== RUN",
				"=== FAIL example.com/fix/bad TestPrivacy ", // parent of a failed subtest, nothing new to say
				"checking tenant isolation\n    --- FAIL: TestPrivacy/sqlite",
			},
		},
		{
			file: "sqlite_only.json",
			want: []string{
				"backend suites: postgres=0 passed, sqlite=3 passed",
				"FAIL: no Postgres suite ran",
			},
		},
		{
			file: "timeout.json",
			want: []string{
				"FAIL example.com/fix/slow 1.01s",
				"=== DID NOT FINISH example.com/fix/slow TestSlow\n",
				"=== DID NOT FINISH example.com/fix/slow TestSlow/postgres\n",
				"slow_test.go:10: waiting",
				"panic: test timed out after 1s",
				"tests:    0 passed, 2 failed, 0 skipped",
				"backend suites: postgres=0 passed, sqlite=0 passed",
				"FAIL: 1 package(s) failed; 2 test(s) failed; no Postgres suite ran",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", tt.file))
			require.NoError(t, err)
			defer f.Close()
			var out strings.Builder
			ok, _, err := run(f, &out, []string{"postgres", "sqlite"})
			require.NoError(t, err)
			assert.Equal(t, tt.wantOK, ok)
			assertInOrder(t, out.String(), tt.want)
			for _, s := range tt.notWant {
				assert.NotContains(t, out.String(), s)
			}
		})
	}
}

func assertInOrder(t *testing.T, got string, want []string) {
	t.Helper()
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if !assert.GreaterOrEqual(t, i, 0, "missing (or out of order) %q in:\n%s", w, got) {
			return
		}
		rest = rest[i+len(w):]
	}
}

func TestRunHandCrafted(t *testing.T) {
	const pkg = `"Package":"example.com/p"`
	tests := []struct {
		name     string
		input    string
		backends []string
		wantOK   bool
		want     []string
	}{
		{
			name:   "empty input fails",
			input:  "",
			wantOK: false,
			want:   []string{"FAIL: no `go test -json` events in the input"},
		},
		{
			name: "non-JSON lines pass through",
			input: "go: downloading example.com/m v1.0.0\n" +
				`{"Action":"run",` + pkg + `,"Test":"TestA"}` + "\n" +
				`{"Action":"pass",` + pkg + `,"Test":"TestA"}` + "\n" +
				`{"Action":"pass",` + pkg + `,"Elapsed":0.5}` + "\n",
			wantOK: true,
			want:   []string{"go: downloading example.com/m v1.0.0\n", "ok   example.com/p 0.50s", "PASS"},
		},
		{
			name: "dedup suffix and nested backends count",
			input: `{"Action":"pass",` + pkg + `,"Test":"TestA/postgres#01"}` + "\n" +
				`{"Action":"pass",` + pkg + `,"Test":"TestA/sqlite/case/x"}` + "\n" +
				`{"Action":"pass",` + pkg + `,"Test":"TestA/postgresql"}` + "\n" +
				`{"Action":"skip",` + pkg + `,"Test":"TestB/postgres"}` + "\n" +
				`{"Action":"pass",` + pkg + `}` + "\n",
			backends: []string{"postgres", "sqlite"},
			wantOK:   true,
			want:     []string{"backend suites: postgres=1 passed, sqlite=1 passed", "PASS"},
		},
		{
			name: "skipped postgres suite does not count",
			input: `{"Action":"skip",` + pkg + `,"Test":"TestA/postgres"}` + "\n" +
				`{"Action":"pass",` + pkg + `,"Test":"TestA/sqlite"}` + "\n" +
				`{"Action":"pass",` + pkg + `}` + "\n",
			backends: []string{"postgres", "sqlite"},
			want:     []string{"tests:    1 passed, 0 failed, 1 skipped", "FAIL: no Postgres suite ran"},
		},
		{
			name: "no required backends",
			input: `{"Action":"pass",` + pkg + `,"Test":"TestA"}` + "\n" +
				`{"Action":"pass",` + pkg + `}` + "\n",
			wantOK: true,
			want:   []string{"tests:    1 passed", "PASS"},
		},
		{
			name:   "unterminated last line is read",
			input:  `{"Action":"pass",` + pkg + `}`,
			wantOK: true,
			want:   []string{"ok   example.com/p", "PASS"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			ok, _, err := run(strings.NewReader(tt.input), &out, tt.backends)
			require.NoError(t, err)
			assert.Equal(t, tt.wantOK, ok, out.String())
			assertInOrder(t, out.String(), tt.want)
		})
	}
}

func TestBackendOf(t *testing.T) {
	backends := []string{"postgres", "sqlite"}
	tests := []struct{ name, want string }{
		{"TestPrivacy/postgres", "postgres"},
		{"TestPrivacy/postgres/cross_tenant", "postgres"},
		{"TestPrivacy/sqlite#02/x", "sqlite"},
		{"TestPrivacy/postgresql", ""},
		{"TestPrivacy/my_postgres", ""},
		{"TestPrivacy/postgres#x", ""},
		{"TestPrivacy", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, backendOf(tt.name, backends))
		})
	}
}

func TestParseEvent(t *testing.T) {
	tests := []struct {
		line   string
		wantOK bool
		want   event
	}{
		{`{"Action":"fail","Package":"p","Test":"T","Elapsed":1.5}` + "\n", true, event{Action: "fail", Package: "p", Test: "T", Elapsed: 1.5}},
		{`{"ImportPath":"p [p.test]","Action":"build-fail"}`, true, event{Action: "build-fail", ImportPath: "p [p.test]"}},
		{`{"Action":"fail","Package":"p","FailedBuild":"p [p.test]"}`, true, event{Action: "fail", Package: "p", FailedBuild: "p [p.test]"}},
		{"# example.com/p\n", false, event{}},
		{`{"not":"an event"}`, false, event{}},
		{`{broken`, false, event{}},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, ok := parseEvent(tt.line)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSplitList(t *testing.T) {
	assert.Equal(t, []string{"postgres", "sqlite"}, splitList(" postgres, sqlite ,"))
	assert.Nil(t, splitList(""))
}

// TestSlowestTests: Finish lists the slowest top-level tests, slowest
// first, at most slowestShown of them; subtests and skipped tests are not
// listed.
func TestSlowestTests(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	s := newSummary(&out, nil)
	for i := range slowestShown + 5 {
		s.Add(event{Action: "pass", Package: "example.com/p", Test: fmt.Sprintf("TestN%02d", i), Elapsed: float64(i)})
	}
	s.Add(event{Action: "pass", Package: "example.com/p", Test: "TestN19/sub", Elapsed: 99})
	s.Add(event{Action: "skip", Package: "example.com/p", Test: "TestSkipped", Elapsed: 98})
	s.Add(event{Action: "fail", Package: "example.com/q", Test: "TestFailedSlowly", Elapsed: 50})
	s.Finish()
	got := out.String()
	require.Contains(t, got, fmt.Sprintf("slowest tests (top %d, seconds):\n", slowestShown))
	assert.Contains(t, got, "     50.00 example.com/q TestFailedSlowly\n     19.00 example.com/p TestN19\n     18.00 example.com/p TestN18\n")
	assert.Contains(t, got, "      6.00 example.com/p TestN06\n")
	assert.NotContains(t, got, "TestN05\n", "only the slowest are listed")
	assert.NotContains(t, got, "TestN19/sub")
	assert.NotContains(t, got, "TestSkipped")
}

// TestSuitesListsTheBackendSuites checks the -suites output: the top-level
// tests that had a subtest on a backend, once each, and nothing else.
func TestSuitesListsTheBackendSuites(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file     string
		backends []string
		want     string
	}{
		{file: "pass.json", backends: []string{"postgres", "sqlite"}, want: "example.com/fix/good TestStore\n"},
		{file: "pass.json", backends: []string{"postgres"}, want: "example.com/fix/good TestStore\n"},
		{file: "pass.json", backends: nil, want: ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%v", tt.file, tt.backends), func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(filepath.Join("testdata", tt.file))
			require.NoError(t, err)
			defer f.Close()
			var out strings.Builder
			_, found, err := run(f, &out, tt.backends)
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "suites")
			require.NoError(t, writeSuites(path, found))
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}
