package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	goopenai "github.com/sashabaranov/go-openai"
)

// defaultEmptyLines is go-openai's default EmptyMessagesLimit: the number
// of lines other than data lines tolerated between two data lines.
const defaultEmptyLines = 300

// eventReader reads the data lines of a chat completion's server-sent
// event stream. It replaces go-openai's line reader, which runs three
// regular expressions on every line (11.6 % of the server's CPU while
// streaming, docs/BENCHMARKS.md), and keeps its outcomes:
//
//   - a `data:` line yields its payload (leading blanks after the colon
//     and blanks around the line removed);
//   - `data: [DONE]` ends the stream with io.EOF and sets done;
//   - a `data: {"error": …}` line ends it with go-openai's error, an
//     *APIError wrapped as "error, …";
//   - any other line (blank lines, comments such as keep-alives, other
//     fields) is skipped, at most emptyLimit of them in a row
//     (goopenai.ErrTooManyEmptyStreamMessages beyond);
//   - lines that are not SSE at all (a provider writing a bare JSON error
//     body) are kept, and decoded as an error response when the body ends;
//   - the body's end without [DONE] returns the read's error (io.EOF for a
//     clean close) with done unset, and a last line cut short is dropped.
//
// Unlike go-openai, comments and SSE fields are not mixed into the
// accumulated error text, so an error after a keep-alive still decodes.
// The payload returned is valid until the next call.
type eventReader struct {
	r          *bufio.Reader
	emptyLimit int
	done       bool
	// long holds a line longer than r's buffer.
	long []byte
	// junk accumulates the lines that are not SSE.
	junk []byte
}

func newEventReader(body io.Reader) *eventReader {
	return &eventReader{r: bufio.NewReaderSize(body, 4096), emptyLimit: defaultEmptyLines}
}

var (
	dataField   = []byte("data:")
	doneData    = []byte("[DONE]")
	errorPrefix = []byte(`{"error":`)
)

// next returns the payload of the next data line.
func (e *eventReader) next() ([]byte, error) {
	if e.done {
		return nil, io.EOF
	}
	skipped := 0
	for {
		line, readErr := e.readLine()
		if readErr != nil {
			// A last line without its newline may be cut short; only an
			// end marker is taken from it (go-openai drops it; its [DONE]
			// detector on the body saw the marker).
			if p, ok := dataPayload(bytes.TrimSpace(line)); ok && bytes.Equal(p, doneData) {
				e.done = true
				return nil, io.EOF
			}
			if err := decodeErrorResponse(e.junk); err != nil {
				return nil, err
			}
			return nil, readErr
		}
		line = bytes.TrimSpace(line)
		payload, ok := dataPayload(line)
		switch {
		case ok && bytes.HasPrefix(payload, errorPrefix):
			if err := decodeErrorResponse(payload); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("openai: malformed error event %q", payload)
		case ok && bytes.Equal(payload, doneData):
			e.done = true
			return nil, io.EOF
		case ok:
			return payload, nil
		}
		if len(line) > 0 && !isSSEField(line) {
			e.junk = append(e.junk, line...)
		}
		skipped++
		if skipped > e.emptyLimit {
			return nil, goopenai.ErrTooManyEmptyStreamMessages
		}
	}
}

// readLine returns the next line with its newline, or what was left
// before the body ended together with the read's error.
func (e *eventReader) readLine() ([]byte, error) {
	line, err := e.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	e.long = append(e.long[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = e.r.ReadSlice('\n')
		e.long = append(e.long, line...)
	}
	return e.long, err
}

// dataPayload returns what follows "data:" and the blanks after it, as
// go-openai's `^data:\s*` does.
func dataPayload(line []byte) ([]byte, bool) {
	if !bytes.HasPrefix(line, dataField) {
		return nil, false
	}
	p := line[len(dataField):]
	for len(p) > 0 && (p[0] == ' ' || p[0] == '\t' || p[0] == '\r' || p[0] == '\n' || p[0] == '\f') {
		p = p[1:]
	}
	return p, true
}

// isSSEField reports whether a (non-data) line is a comment or one of the
// event-stream fields a chat completion does not use.
func isSSEField(line []byte) bool {
	if line[0] == ':' {
		return true
	}
	for _, f := range [...]string{"event:", "id:", "retry:", "event", "id", "retry"} {
		if len(line) >= len(f) && string(line[:len(f)]) == f && (len(line) == len(f) || f[len(f)-1] == ':') {
			return true
		}
	}
	return false
}

// decodeErrorResponse returns go-openai's error for an error body, or nil
// when b is not one.
func decodeErrorResponse(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	var resp goopenai.ErrorResponse
	if err := json.Unmarshal(b, &resp); err != nil || resp.Error == nil {
		return nil
	}
	return fmt.Errorf("error, %w", resp.Error)
}
