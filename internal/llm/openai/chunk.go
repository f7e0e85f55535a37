package openai

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	goopenai "github.com/sashabaranov/go-openai"
)

// streamChunk is the part of a chat.completion.chunk the stream reads.
// A chunk arrives for every few characters of the answer; decoding it into
// go-openai's full ChatCompletionStreamResponse (tool calls, log
// probabilities, content filter results, …) took about twice the CPU of
// this (docs/BENCHMARKS.md, "Where the time went").
type streamChunk struct {
	Model   string          `json:"model"`
	Choices []chunkChoice   `json:"choices"`
	Usage   *goopenai.Usage `json:"usage"`
}

// chunkChoice is one choice of a streamChunk.
type chunkChoice struct {
	Index int `json:"index"`
	Delta struct {
		Content string `json:"content"`
	} `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

// decodeChunk decodes raw into c as json.Unmarshal into a zero
// streamChunk would. The shape every provider sends for an answer's text
// (a model name, choices with a delta's content, no usage) is read by a
// small scanner that allocates only the content and reuses c's choices
// and model name (the model is the same in every chunk); anything else
// (the usage chunk, escapes it does not decode, case-folded keys, invalid
// JSON) goes to json.Unmarshal, which then decides, errors included.
// encoding/json took 12 allocations and most of the stream's CPU per
// chunk (docs/BENCHMARKS.md, "Server CPU per ask").
func decodeChunk(raw []byte, c *streamChunk) error {
	choices := c.Choices[:cap(c.Choices)]
	clear(choices)
	prev := c.Model
	*c = streamChunk{Choices: choices[:0]}
	sc := chunkScanner{b: raw, model: prev}
	if sc.chunk(c) {
		return nil
	}
	*c = streamChunk{}
	return json.Unmarshal(raw, c)
}

// chunkScanner reads one chunk; every method returns false when the input
// is not of the shape it reads, and the caller falls back to
// encoding/json.
type chunkScanner struct {
	b     []byte
	i     int
	model string
	depth int
}

func (s *chunkScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips blanks and reports whether the next byte is c, consuming it.
func (s *chunkScanner) next(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *chunkScanner) chunk(c *streamChunk) bool {
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "model":
			v, ok := s.str()
			if !ok {
				return false
			}
			if string(v) != s.model {
				s.model = string(v)
			}
			c.Model = s.model
			return true
		case "choices":
			c.Choices = c.Choices[:0]
			if s.null() {
				c.Choices = nil
				return true
			}
			return s.array(func() bool {
				c.Choices = append(c.Choices, chunkChoice{})
				return s.choice(&c.Choices[len(c.Choices)-1])
			})
		case "usage":
			return s.null() // a usage object is left to encoding/json
		}
		return s.other(key, "model", "choices", "usage")
	})
	s.ws()
	return ok && s.i == len(s.b)
}

func (s *chunkScanner) choice(ch *chunkChoice) bool {
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "index":
			n, ok := s.int()
			ch.Index = n
			return ok
		case "finish_reason":
			if s.null() {
				ch.FinishReason = ""
				return true
			}
			v, ok := s.str()
			ch.FinishReason = string(v)
			return ok
		case "delta":
			if s.null() {
				return true
			}
			return s.object(func(key []byte) bool {
				if string(key) == "content" {
					if s.null() {
						return true
					}
					v, ok := s.str()
					ch.Delta.Content = string(v)
					return ok
				}
				return s.other(key, "content")
			})
		}
		return s.other(key, "index", "finish_reason", "delta")
	})
}

// other skips the value of a key the chunk does not read; a key that
// matches a read one but for case is left to encoding/json, which matches
// keys case-insensitively.
func (s *chunkScanner) other(key []byte, known ...string) bool {
	for _, k := range known {
		if bytes.EqualFold(key, []byte(k)) {
			return false
		}
	}
	return s.skip()
}

// object reads {"key": value, …}, calling field after each key's colon.
func (s *chunkScanner) object(field func(key []byte) bool) bool {
	return s.list('{', '}', func() bool {
		key, ok := s.str()
		if !ok || !s.next(':') {
			return false
		}
		s.ws()
		return field(key)
	})
}

// array reads [value, …], calling elem before each value.
func (s *chunkScanner) array(elem func() bool) bool {
	return s.list('[', ']', elem)
}

// list reads start item, … end, one nesting level deeper, calling item
// at each item (after its leading white space): an object's members or an
// array's elements.
func (s *chunkScanner) list(start, end byte, item func() bool) bool {
	if !s.next(start) || !s.enter() {
		return false
	}
	defer s.leave()
	if s.next(end) {
		return true
	}
	for {
		s.ws()
		if !item() {
			return false
		}
		if !s.next(',') {
			return s.next(end)
		}
	}
}

func (s *chunkScanner) enter() bool { s.depth++; return s.depth <= 32 }
func (s *chunkScanner) leave()      { s.depth-- }

// null consumes a null.
func (s *chunkScanner) null() bool {
	s.ws()
	if bytes.HasPrefix(s.b[s.i:], []byte("null")) {
		s.i += 4
		return true
	}
	return false
}

// str reads a string without escapes, of valid UTF-8; it returns its
// bytes (valid until the buffer is reused).
func (s *chunkScanner) str() ([]byte, bool) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	ascii := true
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			v := s.b[start:j]
			if !ascii && !utf8.Valid(v) {
				return nil, false
			}
			s.i = j + 1
			return v, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// int reads an integer that fits an int.
func (s *chunkScanner) int() (int, bool) {
	s.ws()
	j := s.i
	if j < len(s.b) && s.b[j] == '-' {
		j++
	}
	k := j
	for k < len(s.b) && s.b[k] >= '0' && s.b[k] <= '9' {
		k++
	}
	if k == j || (s.b[j] == '0' && k > j+1) || (k < len(s.b) && (s.b[k] == '.' || s.b[k] == 'e' || s.b[k] == 'E')) {
		return 0, false
	}
	if k-j > 18 {
		return 0, false // may not fit; encoding/json decides
	}
	n := 0
	for _, d := range s.b[j:k] {
		n = n*10 + int(d-'0')
	}
	if j > s.i {
		n = -n
	}
	s.i = k
	return n, true
}

// skip passes over one value of the kinds a chunk's other fields hold:
// strings without escapes, integers, literals, and objects and arrays of
// them. Anything else (escapes, fractions) is left to encoding/json.
func (s *chunkScanner) skip() bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, ok := s.str()
		return ok
	case c == '{':
		return s.object(func([]byte) bool { return s.skip() })
	case c == '[':
		return s.array(s.skip)
	case c == '-' || (c >= '0' && c <= '9'):
		_, ok := s.int()
		return ok
	}
	for _, lit := range [...]string{"null", "true", "false"} {
		if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
			s.i += len(lit)
			return true
		}
	}
	return false
}
