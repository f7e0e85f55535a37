package textsearch

import (
	"strconv"
	"strings"
)

// maxPositions is the number of positions PostgreSQL keeps per lexeme of a
// tsvector (MAXNUMPOS); TSVector writes no more.
const maxPositions = 256

// TSVector encodes document tokens (from Tokens) as the input text of a
// PostgreSQL tsvector, for a bound parameter cast in SQL: `$1::tsvector`.
// Each distinct token is one lexeme, quoted ('…', with ' doubled and \
// escaped), followed by the 1-based positions where it occurs (at most 256,
// as PostgreSQL keeps no more), e.g. 'vpn':1 '设':2 '设备':3 '备':4.
//
// The cast stores the lexemes exactly as given. to_tsvector('simple', …)
// would instead run PostgreSQL's parser again, which splits differently from
// Tokens (it keeps a CJK run whole and classifies letters by the database's
// locale), so it is not used. The positions let ts_rank and ts_rank_cd weigh
// repeats and proximity. Tokens beyond position 16383 (PostgreSQL's largest)
// cannot occur because MaxDocumentTokens is smaller. No tokens give "", the
// empty tsvector.
func TSVector(tokens []string) string {
	index := make(map[string]int, len(tokens))
	var lexemes []string
	var positions [][]int
	for i, t := range tokens {
		if t == "" {
			continue
		}
		k, ok := index[t]
		if !ok {
			k = len(lexemes)
			index[t] = k
			lexemes = append(lexemes, t)
			positions = append(positions, nil)
		}
		if len(positions[k]) < maxPositions {
			positions[k] = append(positions[k], i+1)
		}
	}
	var b strings.Builder
	for k, t := range lexemes {
		if k > 0 {
			b.WriteByte(' ')
		}
		writeQuoted(&b, t)
		for j, p := range positions[k] {
			if j == 0 {
				b.WriteByte(':')
			} else {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(p))
		}
	}
	return b.String()
}

// TSQuery encodes query terms (from Query) as the input text of a PostgreSQL
// tsquery that requires all of them, for `$1::tsquery`: 'a' & 'b', quoted as
// in TSVector. Like the tsvector cast, the tsquery cast takes the lexemes as
// they are (to_tsquery would parse and normalise them again). No terms give
// "", which PostgreSQL reads as an empty query that matches nothing; callers
// reject an empty query before searching.
func TSQuery(terms []string) string {
	var b strings.Builder
	n := 0
	for _, t := range terms {
		if t == "" {
			continue
		}
		if n > 0 {
			b.WriteString(" & ")
		}
		writeQuoted(&b, t)
		n++
	}
	return b.String()
}

// writeQuoted writes t as a quoted tsvector/tsquery lexeme: inside single
// quotes, a quote is doubled and a backslash is escaped with a backslash.
// (Terms from Tokens and Query never contain either; the quoting keeps any
// input safe.)
func writeQuoted(b *strings.Builder, t string) {
	b.WriteByte('\'')
	for i := 0; i < len(t); i++ {
		switch c := t[i]; c {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
}
