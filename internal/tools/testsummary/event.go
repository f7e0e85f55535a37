package main

import (
	"encoding/json"
	"strings"
)

// event is one line of `go test -json` (see `go doc cmd/test2json`).
type event struct {
	// Action is start, run, pause, cont, pass, bench, fail, output, skip,
	// or, for build events (Go 1.24+), build-output and build-fail.
	Action string
	// Package is the import path of the test binary's package.
	Package string
	// Test is the test name (with subtests joined by "/"), empty for
	// package-level events.
	Test string
	// Elapsed is the duration in seconds of a pass or fail.
	Elapsed float64
	// Output is a chunk of output, usually one line with its newline.
	Output string
	// FailedBuild is set on a package's fail event when its build failed.
	FailedBuild string
	// ImportPath identifies the package of build-output and build-fail.
	ImportPath string
}

// parseEvent decodes a line of `go test -json` output. ok is false for lines
// that are not JSON events, such as stderr text mixed into the stream.
func parseEvent(line string) (ev event, ok bool) {
	trimmed := strings.TrimSpace(line)
	if !strings.HasPrefix(trimmed, "{") {
		return event{}, false
	}
	if err := json.Unmarshal([]byte(trimmed), &ev); err != nil || ev.Action == "" {
		return event{}, false
	}
	return ev, true
}
