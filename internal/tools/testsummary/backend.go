package main

import "strings"

// backendOf returns the first of backends that is a path element of the
// test name (e.g. "TestPrivacy/postgres/reads" has the element "postgres"),
// or "" when none is. A "#NN" suffix, which `go test` appends to repeated
// subtest names, is ignored.
func backendOf(testName string, backends []string) string {
	for elem := range strings.SplitSeq(testName, "/") {
		elem = trimDedupSuffix(elem)
		for _, b := range backends {
			if elem == b {
				return b
			}
		}
	}
	return ""
}

// trimDedupSuffix removes a trailing "#" followed by digits.
func trimDedupSuffix(elem string) string {
	i := strings.LastIndexByte(elem, '#')
	if i < 0 || i == len(elem)-1 {
		return elem
	}
	for _, r := range elem[i+1:] {
		if r < '0' || r > '9' {
			return elem
		}
	}
	return elem[:i]
}

// backendTitle is how a backend is named in messages.
func backendTitle(b string) string {
	switch b {
	case "postgres":
		return "Postgres"
	case "sqlite":
		return "SQLite"
	}
	return b
}
