package textsearch

import (
	"encoding/hex"
	"strings"
)

// FTS5Tokenize is the tokenize option for the FTS5 table that holds
// FTS5Document text: CREATE VIRTUAL TABLE … USING fts5(…, tokenize='ascii').
// The encoding also survives 'unicode61 remove_diacritics 0' (the default
// tokenizer) unchanged; it must not be a stemming (porter) or trigram
// tokenizer.
const FTS5Tokenize = "ascii"

// FTS5Term encodes one term for FTS5 so that no FTS5 tokenizer splits or
// changes it. A term made only of a–z and 0–9 that does not start with 'x'
// is kept as it is (vpn, err, h264: the common case stays compact and
// readable); every other term is 'x' followed by the lower-case hex of its
// UTF-8 bytes (猫 → xe78cab, xml → x786d6c). Plain terms never start with 'x'
// and encoded ones always do, so two different terms never share an
// encoding.
//
// Storing the UTF-8 terms themselves would depend on the table's tokenizer:
// unicode61 treats combining marks (Devanagari vowel signs, Thai tone marks)
// as separators and knows only the Unicode version SQLite was built with,
// so it would re-split some terms; lower-case ASCII letters and digits are
// token characters for every FTS5 tokenizer and folding leaves them alone.
func FTS5Term(t string) string {
	if isPlain(t) {
		return t
	}
	b := make([]byte, 1+hex.EncodedLen(len(t)))
	b[0] = 'x'
	hex.Encode(b[1:], []byte(t))
	return string(b)
}

// isPlain reports whether t is non-empty, only a–z and 0–9, and does not start
// with 'x'.
func isPlain(t string) bool {
	if t == "" || t[0] == 'x' {
		return false
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// FTS5Document encodes document tokens (from Tokens) as the text of an FTS5
// column: every token encoded with FTS5Term, in order, repeats included (so
// bm25 sees term frequencies), separated by single spaces.
func FTS5Document(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(FTS5Term(t))
	}
	return b.String()
}

// FTS5Match encodes query terms (from Query) as an FTS5 MATCH expression that
// requires all of them: "t1" AND "t2", each term encoded with FTS5Term and
// double-quoted as an FTS5 string (a double quote inside is doubled, though
// encoded terms never contain one), so that no term is read as an operator
// (AND, OR, NOT, NEAR) or a column filter. No terms give "", which FTS5
// rejects as a syntax error; callers reject an empty query before searching.
func FTS5Match(terms []string) string {
	var b strings.Builder
	for _, t := range terms {
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" AND ")
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(FTS5Term(t), `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}
