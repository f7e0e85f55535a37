package openai

import (
	"io"
	"strings"
	"sync/atomic"
	"testing"
)

// chunkedReader returns its text in reads of at most size bytes.
type chunkedReader struct {
	text string
	size int
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	if r.text == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.size)], r.text)
	r.text = r.text[n:]
	return n, nil
}

func (r *chunkedReader) Close() error { return nil }

// TestDoneDetectorFindsTheMarkerAcrossReads checks that [DONE] is seen
// wherever the reads split it, and never without it.
func TestDoneDetectorFindsTheMarkerAcrossReads(t *testing.T) {
	const answer = "data: {\"choices\":[{\"delta\":{\"content\":\"abcd\"}}]}\n\n"
	tests := []struct {
		name string
		body string
		want bool
	}{
		{"with marker", answer + "data: [DONE]\n\n", true},
		{"marker only", "data: [DONE]", true},
		{"cut before the end", answer + "data: [DON", false},
		{"no marker", answer + answer, false},
		{"near miss", answer + "data: [DONE ]\n\n" + "[DON" + "E", false},
	}
	for _, tt := range tests {
		for size := 1; size <= len(tt.body); size++ {
			var done atomic.Bool
			d := &doneDetector{ReadCloser: &chunkedReader{text: tt.body, size: size}, done: &done}
			got, err := io.ReadAll(d)
			if err != nil || string(got) != tt.body {
				t.Fatalf("%s, reads of %d: read %q, %v", tt.name, size, got, err)
			}
			if done.Load() != tt.want {
				t.Fatalf("%s, reads of %d bytes: done = %v, want %v", tt.name, size, done.Load(), tt.want)
			}
		}
	}
	if !strings.Contains("data: [DONE]", string(doneMarker)) {
		t.Fatal("marker")
	}
}
