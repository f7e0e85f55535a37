package chunker

import "unicode"

// This file exports test helpers to the external chunker_test package.

// WordCounter is a simple deterministic counter for tests: every CJK
// character (U+2E80 and above) is one token and so is every run of other
// non-space characters. "上传20MB。" counts 4 and "e.g. PDF" counts 2.
type WordCounter struct{}

// Count implements Counter.
func (WordCounter) Count(s string) int {
	n, inWord := 0, false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			inWord = false
		case r >= 0x2E80:
			n++
			inWord = false
		default:
			if !inWord {
				n++
			}
			inWord = true
		}
	}
	return n
}

// RuneCounter counts every non-space character as one token.
type RuneCounter struct{}

// Count implements Counter.
func (RuneCounter) Count(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}
