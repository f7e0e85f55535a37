package textsearch

import (
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Span is the byte range [Start, End) of a text.
type Span struct {
	Start, End int
}

// Highlight returns where query terms (from Query) occur in text, as byte
// ranges of text itself — the original, not its normalised form — in order,
// with overlapping ranges merged, for snippets that mark the
// match. A range covers a whole word (ERR in ERR_FILE_TOO_LARGE, ＶＰＮ in
// full width) or the CJK characters of a matching bigram or character; the
// bigrams 喜欢 and 欢猫 of the query 喜欢猫 give one range. It scans the whole
// text (linear time), also beyond MaxDocumentTokens. No terms give nil.
func Highlight(text string, terms []string) []Span {
	if len(terms) == 0 {
		return nil
	}
	set := make(map[string]struct{}, len(terms))
	for _, t := range terms {
		set[t] = struct{}{}
	}
	s, from, to := normalizeMapped(text)
	var spans []Span
	add := func(a, b int) {
		start, end := from[a], to[b-1]
		if n := len(spans); n > 0 && start < spans[n-1].End {
			spans[n-1].End = max(spans[n-1].End, end)
			return
		}
		spans = append(spans, Span{start, end})
	}
	hit := func(t string) bool {
		_, ok := set[clip(t)]
		return ok
	}
	scan(s, func(kind runKind, at int, run string, units []int) bool {
		if kind == wordRun {
			if hit(run) {
				add(at, at+len(run))
			}
			return true
		}
		for i := 0; i+1 < len(units); i++ {
			if hit(run[units[i]:units[i+1]]) {
				add(at+units[i], at+units[i+1])
			}
			if i+2 < len(units) && hit(run[units[i]:units[i+2]]) {
				add(at+units[i], at+units[i+2])
			}
		}
		return true
	})
	return spans
}

// normalizeMapped normalises text like Normalize, one normalisation segment
// at a time, and returns for every byte i of the result the byte range
// [from[i], to[i]) of the segment of text it came from.
func normalizeMapped(text string) (s string, from, to []int) {
	var it norm.Iter
	it.InitString(norm.NFKC, text)
	var c *cases.Caser
	defer func() {
		if c != nil {
			folders.Put(c)
		}
	}()
	out := make([]byte, 0, len(text))
	from, to = make([]int, 0, len(text)), make([]int, 0, len(text))
	for !it.Done() {
		start := it.Pos()
		seg := it.Next()
		end := it.Pos()
		if !isLowerASCII(string(seg)) {
			if c == nil {
				c = folders.Get().(*cases.Caser)
			}
			seg = c.Bytes(seg)
			if !norm.NFKC.IsNormal(seg) {
				seg = norm.NFKC.Bytes(seg)
			}
		}
		out = append(out, seg...)
		for range seg {
			from = append(from, start)
			to = append(to, end)
		}
	}
	// A character that normalises to several pieces (ǅ → d, ž) yields its
	// first pieces before the iterator moves past it: they end where the
	// next piece from the same character ends.
	for i := len(to) - 1; i >= 0; i-- {
		if to[i] <= from[i] {
			if i+1 < len(to) && from[i+1] == from[i] {
				to[i] = to[i+1]
			} else {
				to[i] = len(text)
			}
		}
	}
	return string(out), from, to
}
