package openai

import (
	"errors"
	"io"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
)

// chunkedReader returns its text in reads of at most size bytes.
type chunkedReader struct {
	text string
	size int
	// err is returned once the text is spent (io.EOF when nil).
	err error
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	if r.text == "" {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.size)], r.text)
	r.text = r.text[n:]
	return n, nil
}

// readEvents reads every payload of body, in reads of size bytes.
func readEvents(body string, size int, readErr error) ([]string, bool, error) {
	e := newEventReader(&chunkedReader{text: body, size: size, err: readErr})
	var out []string
	for {
		p, err := e.next()
		if err != nil {
			return out, e.done, err
		}
		out = append(out, string(p))
	}
}

// TestEventReader checks the parser's outcomes on the shapes providers
// send, wherever the reads split the body.
func TestEventReader(t *testing.T) {
	const a = `{"choices":[{"delta":{"content":"ab"}}]}`
	const b = `{"choices":[{"delta":{"content":"cd"}}]}`
	apiErr := `{"error":{"message":"overloaded","type":"server_error","code":"x"}}`
	dropped := errors.New("connection reset")
	long := `{"choices":[{"delta":{"content":"` + strings.Repeat("x", 10000) + `"}}]}`
	tests := []struct {
		name    string
		body    string
		readErr error
		want    []string
		done    bool
		// err is the error's text; errIs an error it must wrap.
		err   string
		errIs error
	}{
		{name: "plain", body: "data: " + a + "\n\ndata: " + b + "\n\ndata: [DONE]\n\n", want: []string{a, b}, done: true, errIs: io.EOF},
		{name: "CRLF", body: "data: " + a + "\r\n\r\ndata: [DONE]\r\n\r\n", want: []string{a}, done: true, errIs: io.EOF},
		{name: "no blank after colon", body: "data:" + a + "\n\ndata:[DONE]\n\n", want: []string{a}, done: true, errIs: io.EOF},
		{name: "tabs and blanks around", body: "  data:\t " + a + "  \n\n", want: []string{a}, errIs: io.EOF},
		{name: "comments and keep-alives", body: ": keep-alive\n\n: ping\ndata: " + a + "\n\n:\n\ndata: [DONE]\n\n", want: []string{a}, done: true, errIs: io.EOF},
		{name: "event and id fields", body: "event: message\nid: 7\nretry: 100\ndata: " + a + "\n\ndata: [DONE]\n\n", want: []string{a}, done: true, errIs: io.EOF},
		{name: "usage chunk after finish", body: "data: " + a + "\n\ndata: {\"choices\":[],\"usage\":{\"total_tokens\":3}}\n\ndata: [DONE]\n\n", want: []string{a, `{"choices":[],"usage":{"total_tokens":3}}`}, done: true, errIs: io.EOF},
		{name: "no [DONE]", body: "data: " + a + "\n\n", want: []string{a}, errIs: io.EOF},
		{name: "[DONE] without newline", body: "data: " + a + "\n\ndata: [DONE]", want: []string{a}, done: true, errIs: io.EOF},
		{name: "last line cut short", body: "data: " + a + "\n\ndata: {\"choi", want: []string{a}, errIs: io.EOF},
		{name: "near miss marker", body: "data: [DONE ]\n\n", want: []string{"[DONE ]"}, errIs: io.EOF},
		{name: "dropped mid-stream", body: "data: " + a + "\n\ndata: {\"ch", readErr: dropped, want: []string{a}, errIs: dropped},
		{name: "line longer than the buffer", body: "data: " + long + "\n\ndata: [DONE]\n\n", want: []string{long}, done: true, errIs: io.EOF},
		{name: "error event", body: "data: " + a + "\n\ndata: " + apiErr + "\n\n", want: []string{a}, err: "error, overloaded"},
		{name: "error event after a keep-alive", body: ": keep-alive\n\ndata: " + apiErr + "\n\n", err: "error, overloaded"},
		{name: "malformed error event", body: "data: {\"error\": nope\n\n", err: "malformed error event"},
		{name: "bare JSON error body", body: apiErr + "\n", err: "error, overloaded"},
		{name: "bare JSON error body over lines", body: "{\"error\":\n{\"message\":\"overloaded\"}}\n", err: "error, overloaded"},
		{name: "too many empty lines", body: strings.Repeat("\n", defaultEmptyLines+1) + "data: " + a + "\n", errIs: goopenai.ErrTooManyEmptyStreamMessages},
		{name: "empty lines at the limit", body: strings.Repeat("\n", defaultEmptyLines) + "data: " + a + "\n", want: []string{a}, errIs: io.EOF},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 2, 3, 7, 64, 1 << 20} {
			got, done, err := readEvents(tt.body, size, tt.readErr)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || done != tt.done {
				t.Fatalf("%s, reads of %d: payloads %q done %v, want %q done %v", tt.name, size, got, done, tt.want, tt.done)
			}
			if tt.errIs != nil && !errors.Is(err, tt.errIs) {
				t.Fatalf("%s, reads of %d: err %v, want %v", tt.name, size, err, tt.errIs)
			}
			if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("%s, reads of %d: err %v, want %q", tt.name, size, err, tt.err)
			}
		}
	}
}

// TestEventReaderErrorIsGoOpenAIs: an error event is classified as
// go-openai's stream error was, an upstream error with the provider's
// message.
func TestEventReaderErrorIsGoOpenAIs(t *testing.T) {
	_, _, err := readEvents("data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n", 4096, nil)
	var apiErr *goopenai.APIError
	if !errors.As(err, &apiErr) || apiErr.Message != "overloaded" {
		t.Fatalf("err = %#v", err)
	}
	if e := classifyError(err); e.Message != "overloaded" || e.Retryable {
		t.Fatalf("classified as %+v", e)
	}
}

// loopReader serves the same body forever.
type loopReader struct {
	body string
	off  int
}

func (r *loopReader) Read(p []byte) (int, error) {
	n := copy(p, r.body[r.off:])
	r.off = (r.off + n) % len(r.body)
	return n, nil
}

// TestEventReaderAllocations bounds the parser's allocations per chunk:
// none once its buffer exists (go-openai's reader allocated the line and
// the regular expressions' copies: about 5 per chunk).
func TestEventReaderAllocations(t *testing.T) {
	e := newEventReader(&loopReader{body: "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abcd\"}}]}\n\n: keep-alive\n\n"})
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := e.next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Fatalf("%.1f allocations per chunk, want 0", allocs)
	}
}
