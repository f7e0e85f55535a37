// Package textsearch turns conversation text into search terms, identically
// for the documents that are indexed and the queries that search them, and
// encodes those terms for the two full-text indexes ragchat uses: a
// PostgreSQL tsvector/tsquery in the 'simple' configuration and an SQLite
// FTS5 table.
//
// Tokenisation is done here, in Go, because neither database splits Chinese,
// Japanese or Korean text: PostgreSQL's parser and FTS5's tokenizers treat a
// run of CJK characters as one token, pg_trgm needs three characters, and
// zhparser or pg_bigm are missing on most managed services. The rules are:
//
//   - The text is normalised with Unicode NFKC and case-folded (full case
//     folding, then NFKC again), so ＶＰＮ, VPN and vpn are one term, Straße
//     and STRASSE are one term, and half-width katakana equals full-width.
//     Diacritics are kept (café ≠ cafe) and no stemming is done (errors ≠
//     error): both sides see exactly the same terms, so a query matches a
//     document when every query term occurs in it.
//   - Letters, digits and combining marks form words; everything else (space,
//     punctuation including '_', symbols and emoji) separates them, so
//     err_file_too_large and ERR_FILE_TOO_LARGE both give err, file, too,
//     large. Emoji are not indexed.
//   - A run of Han, Hiragana, Katakana or Hangul characters (with the
//     prolonged sound mark ー) is its own unit, split from neighbouring
//     words at the script change (vpn设备 → vpn, 设备). In a document such a
//     run gives its overlapping bigrams and every single character
//     (我喜欢 → 我, 我喜, 喜, 喜欢, 欢), so a query of one character matches;
//     in a query a run of two or more characters gives only its bigrams (all
//     must match) and a run of one character that character.
//   - A term is at most MaxTermBytes bytes: longer words are cut at a rune
//     boundary, the same way on both sides. A document gives at most
//     MaxDocumentTokens tokens (the rest of a longer text is not indexed) and
//     a query at most MaxQueryTerms distinct terms (the rest are dropped, so
//     a very long query matches a superset).
//
// Scripts written without spaces other than CJK (Thai, Lao, Khmer, Myanmar)
// are split only at spaces and punctuation, so their words are long runs cut
// at MaxTermBytes; searching inside such a run does not work yet.
//
// The encodings (TSVector, TSQuery, FTS5Document, FTS5Match) are documented
// where they are defined. Highlight finds the query terms in the original
// text, as byte ranges for snippets. All functions are safe for concurrent
// use.
package textsearch

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// MaxTermBytes bounds the length of a term in bytes (after normalisation).
// Longer words are cut to their longest prefix of whole runes within the
// bound. It keeps every lexeme far below PostgreSQL's 2046-byte limit and,
// together with MaxDocumentTokens, a document's tsvector below its 1 MB limit.
const MaxTermBytes = 64

// MaxDocumentTokens bounds the number of tokens Tokens returns for one
// document; text beyond is not indexed. 8192 tokens are about 8000 Latin
// words (some 50 KB of English) or 4000 CJK characters. It is below
// PostgreSQL's largest tsvector position (16383), so every token gets its own
// position, and 8192 distinct terms of MaxTermBytes fit a tsvector (1 MB).
const MaxDocumentTokens = 8192

// MaxQueryTerms bounds the number of distinct terms Query returns.
const MaxQueryTerms = 64

// folders pools case folders: a cases.Caser is stateful and must not be
// shared between goroutines.
var folders = sync.Pool{New: func() any { c := cases.Fold(); return &c }}

// Normalize returns text in the form terms are taken from: NFKC, full case
// folding, NFKC again (folding can undo a normal form).
func Normalize(text string) string {
	s := norm.NFKC.String(text)
	if isLowerASCII(s) {
		return s
	}
	c := folders.Get().(*cases.Caser)
	s = c.String(s)
	folders.Put(c)
	if !norm.NFKC.IsNormalString(s) {
		s = norm.NFKC.String(s)
	}
	return s
}

// isLowerASCII reports whether s is ASCII without upper-case letters, which
// case folding leaves unchanged.
func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// Tokens returns the tokens of a document in text order, repeats included,
// at most MaxDocumentTokens of them: the words of the normalised text and,
// for every CJK run, its single characters and overlapping bigrams
// interleaved (我喜欢 → 我, 我喜, 喜, 喜欢, 欢). Every token is a substring of
// Normalize(text). Empty or blank text gives no tokens.
func Tokens(text string) []string {
	s := Normalize(text)
	out := make([]string, 0, min(len(s)/3+1, MaxDocumentTokens))
	scan(s, func(kind runKind, _ int, run string, units []int) bool {
		if kind == wordRun {
			out = append(out, clip(run))
			return len(out) < MaxDocumentTokens
		}
		// units holds the byte offset of every CJK unit of run plus len(run).
		for i := 0; i+1 < len(units); i++ {
			out = append(out, clip(run[units[i]:units[i+1]]))
			if len(out) == MaxDocumentTokens {
				return false
			}
			if i+2 < len(units) {
				out = append(out, clip(run[units[i]:units[i+2]]))
				if len(out) == MaxDocumentTokens {
					return false
				}
			}
		}
		return true
	})
	return out
}

// Query returns the distinct terms of a search string in text order, at most
// MaxQueryTerms: its words, the bigrams of every CJK run of two or more
// characters, and the character of every one-character CJK run. A document
// matches when Tokens of it contains every term. An empty result (blank
// text, only punctuation or emoji) means there is nothing to search for;
// callers reject such a query as bad input.
func Query(text string) []string {
	s := Normalize(text)
	var out []string
	seen := make(map[string]struct{})
	add := func(t string) bool {
		t = clip(t)
		if _, dup := seen[t]; !dup {
			seen[t] = struct{}{}
			out = append(out, t)
		}
		return len(out) < MaxQueryTerms
	}
	scan(s, func(kind runKind, _ int, run string, units []int) bool {
		if kind == wordRun || len(units) == 2 {
			return add(run)
		}
		for i := 0; i+2 < len(units); i++ {
			if !add(run[units[i]:units[i+2]]) {
				return false
			}
		}
		return true
	})
	return out
}

// runKind tells a word run from a CJK run.
type runKind int

const (
	wordRun runKind = iota
	cjkRun
)

// runeClass classifies a rune of normalised text.
type runeClass int

const (
	separator runeClass = iota
	wordChar
	cjkChar
	markChar
)

// classOf returns the class of r.
func classOf(r rune) runeClass {
	if r < utf8.RuneSelf {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9', 'A' <= r && r <= 'Z':
			return wordChar
		default:
			return separator
		}
	}
	if isCJK(r) {
		return cjkChar
	}
	switch {
	case unicode.IsLetter(r), unicode.IsNumber(r):
		return wordChar
	case unicode.IsMark(r):
		return markChar
	}
	return separator
}

// isCJK reports whether r is a Han, Hiragana, Katakana or Hangul character or
// the prolonged sound mark (ー, script Common), which is tokenised in bigrams.
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return r == 'ー' || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// scan splits normalised text s into runs and calls emit for each, in order,
// with the byte offset where the run starts in s, until emit returns false.
// A word run is passed with units nil; a CJK run
// with units holding the byte offset (within run) where each character
// starts, followed by len(run). Combining marks extend the unit before them
// (or start a word when nothing precedes them).
func scan(s string, emit func(kind runKind, at int, run string, units []int) bool) {
	var units []int
	start, cur := -1, separator
	flush := func(end int) bool {
		if start < 0 {
			return true
		}
		run := s[start:end]
		ok := true
		if cur == cjkChar {
			units = append(units, len(run))
			ok = emit(cjkRun, start, run, units)
		} else {
			ok = emit(wordRun, start, run, nil)
		}
		start, cur, units = -1, separator, units[:0]
		return ok
	}
	for i, r := range s {
		c := classOf(r)
		switch {
		case c == markChar && start >= 0:
			continue
		case c == markChar:
			c = wordChar
		case c == separator:
			if !flush(i) {
				return
			}
			continue
		}
		if c != cur && !flush(i) {
			return
		}
		if start < 0 {
			start, cur = i, c
		}
		if c == cjkChar {
			units = append(units, i-start)
		}
	}
	flush(len(s))
}

// clip cuts t to at most MaxTermBytes bytes at a rune boundary.
func clip(t string) string {
	if len(t) <= MaxTermBytes {
		return t
	}
	n := MaxTermBytes
	for n > 0 && !utf8.RuneStart(t[n]) {
		n--
	}
	return t[:n]
}
