package attachment

import (
	"bufio"
	"io"
	"strconv"
)

// The tokens of a PDF content stream (ISO 32000-1, 7.2 and 7.8.2).
type tokKind uint8

const (
	tokEOF tokKind = iota
	tokNumber
	tokString  // a literal or hexadecimal string, decoded, in lexer.buf
	tokName    // a name without its slash, #xx decoded, in lexer.buf
	tokKeyword // an operator, or true, false, null, in lexer.buf
	tokArrayOpen
	tokArrayClose
	tokDictOpen
	tokDictClose
	tokOther // a brace or a stray delimiter
)

// The bounds of one token: a string keeps its first maxTokenString bytes
// (the rest is read and dropped), a name or keyword its first
// maxTokenName. The lexer never holds more than that, whatever the stream.
const (
	maxTokenString = 64 << 10
	maxTokenName   = 127
)

// lexer reads the tokens of a content stream (or of a ToUnicode CMap,
// which uses the same syntax) from r, one at a time, reusing one buffer.
// It reads at most what r gives: the caller caps r (cappedReader).
type lexer struct {
	r   *bufio.Reader
	buf []byte
	num float64
}

func newLexer(r io.Reader) *lexer {
	return &lexer{r: bufio.NewReaderSize(r, 16<<10), buf: make([]byte, 0, 256)}
}

// isSpace reports PDF white space; isDelim a delimiter.
func isSpace(c byte) bool {
	return c == 0 || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

// consume reads the next byte if it is c, and reports whether it was.
func (l *lexer) consume(c byte) bool {
	d, err := l.r.ReadByte()
	if err != nil {
		return false
	}
	if d != c {
		_ = l.r.UnreadByte()
	}
	return d == c
}

// next reads the next token.
func (l *lexer) next() tokKind {
	l.buf = l.buf[:0]
	c, ok := l.skipSpace()
	if !ok {
		return tokEOF
	}
	switch c {
	case '(':
		l.literal()
		return tokString
	case '<':
		if l.consume('<') {
			return tokDictOpen
		}
		l.hex()
		return tokString
	case '>':
		if l.consume('>') {
			return tokDictClose
		}
		return tokOther
	case '[':
		return tokArrayOpen
	case ']':
		return tokArrayClose
	case '/':
		l.regular(maxTokenName, true)
		return tokName
	case '{', '}', ')':
		return tokOther
	}
	_ = l.r.UnreadByte()
	l.regular(maxTokenName, false)
	if c == '+' || c == '-' || c == '.' || ('0' <= c && c <= '9') {
		n, err := strconv.ParseFloat(string(l.buf), 64)
		if err == nil {
			l.num = n
			return tokNumber
		}
		l.num = 0
		return tokNumber // a malformed number ("-", "1.2.3") counts as 0
	}
	return tokKeyword
}

// skipSpace skips white space and comments and returns the next byte.
func (l *lexer) skipSpace() (byte, bool) {
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return 0, false
		}
		switch {
		case isSpace(c):
		case c == '%':
			for {
				c, err = l.r.ReadByte()
				if err != nil {
					return 0, false
				}
				if c == '\n' || c == '\r' {
					break
				}
			}
		default:
			return c, true
		}
	}
}

// keep appends c to the token unless it already holds max bytes.
func (l *lexer) keep(c byte, max int) {
	if len(l.buf) < max {
		l.buf = append(l.buf, c)
	}
}

// regular reads a run of regular characters (a name, keyword or number);
// in a name, #xx is the byte xx.
func (l *lexer) regular(max int, name bool) {
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return
		}
		if isSpace(c) || isDelim(c) {
			_ = l.r.UnreadByte()
			return
		}
		if name && c == '#' {
			hi, err1 := l.r.ReadByte()
			lo, err2 := l.r.ReadByte()
			h, okh := unhex(hi)
			lw, okl := unhex(lo)
			if err1 == nil && err2 == nil && okh && okl {
				l.keep(h<<4|lw, max)
				continue
			}
			if err2 == nil {
				_ = l.r.UnreadByte()
			}
			l.keep('#', max)
			continue
		}
		l.keep(c, max)
	}
}

// literal reads a literal string after its opening parenthesis: balanced
// parentheses, backslash escapes, octal codes and line continuations.
func (l *lexer) literal() {
	depth := 1
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return
		}
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return
			}
		case '\\':
			c, err = l.r.ReadByte()
			if err != nil {
				return
			}
			switch c {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if d, err := l.r.ReadByte(); err == nil && d != '\n' {
					_ = l.r.UnreadByte()
				}
				continue
			case '\n':
				continue
			case '0', '1', '2', '3', '4', '5', '6', '7':
				v := c - '0'
				for range 2 {
					d, err := l.r.ReadByte()
					if err != nil {
						break
					}
					if d < '0' || d > '7' {
						_ = l.r.UnreadByte()
						break
					}
					v = v<<3 | (d - '0')
				}
				c = v
			}
		}
		l.keep(c, maxTokenString)
	}
}

// hex reads a hexadecimal string after its opening angle bracket.
func (l *lexer) hex() {
	var hi byte
	odd := false
	for {
		c, err := l.r.ReadByte()
		if err != nil || c == '>' {
			break
		}
		v, ok := unhex(c)
		if !ok {
			continue // white space, or junk a lenient reader skips
		}
		if odd {
			l.keep(hi<<4|v, maxTokenString)
		} else {
			hi = v
		}
		odd = !odd
	}
	if odd {
		l.keep(hi<<4, maxTokenString)
	}
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// skipInlineImage skips the data of an inline image after its ID
// operator: everything up to white space, "EI" and white space (or the
// end of the stream).
func (l *lexer) skipInlineImage() {
	var a, b byte = ' ', ' ' // the two bytes before c
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return
		}
		if isSpace(a) && b == 'E' && c == 'I' {
			d, err := l.r.ReadByte()
			if err != nil {
				return
			}
			if isSpace(d) {
				return
			}
			_ = l.r.UnreadByte()
		}
		a, b = b, c
	}
}
