package prompt

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/promptfmt"
)

// trimmedMark ends the content of an evidence chunk that was cut to fit.
const trimmedMark = "…"

// MinTrimmedTokens is the least content a trimmed chunk keeps, in tokens:
// when the room left holds less, the chunk is dropped instead.
const MinTrimmedTokens = 32

// sentenceEnds are the runes a trimmed chunk prefers to end after.
const sentenceEnds = "。！？；.!?;\n"

// trimBlock cuts ev's content so that its block, labelled label and ending
// in trimmedMark, costs at most room tokens: the longest such prefix,
// ended after its last sentence when that keeps at least half of it. It
// returns the block, the content kept and the block's cost; ok is false
// when less than MinTrimmedTokens of content would fit.
//
// The prefix is found by binary search over its length, counting the
// whole block each time, so the cost is exact for the counter (BPE merges
// across the cut included) and takes O(log n) counts.
func (a *assembly) trimBlock(ev Evidence, label string, room int) (block, content string, cost int, ok bool) {
	text := strings.TrimSpace(ev.Content)
	render := func(n int) (string, string) {
		kept := strings.TrimRightFunc(text[:n], unicode.IsSpace)
		return promptfmt.EvidenceBlock(label, ev.DocumentTitle, kept+trimmedMark), kept
	}
	if empty, _ := render(0); a.c.Count(empty)+MinTrimmedTokens > room {
		return "", "", 0, false
	}
	// The number of bytes kept, moved back to a rune boundary.
	runeStart := func(n int) int {
		for n > 0 && n < len(text) && !utf8.RuneStart(text[n]) {
			n--
		}
		return n
	}
	n := runeStart(sort.Search(len(text)+1, func(n int) bool {
		b, _ := render(runeStart(n))
		return a.c.Count(b) > room
	}) - 1)
	for ; n > 0; n = runeStart(n - 1) {
		if b, _ := render(n); a.c.Count(b) <= room {
			break
		}
	}
	if end := strings.LastIndexAny(text[:n], sentenceEnds); end > 0 && end >= n/2 {
		_, size := utf8.DecodeRuneInString(text[end:])
		if b, kept := render(end + size); a.c.Count(b) <= room && a.c.Count(kept) >= MinTrimmedTokens {
			n = end + size
		}
	}
	block, content = render(n)
	cost = a.c.Count(block)
	if cost > room || a.c.Count(content) < MinTrimmedTokens {
		return "", "", 0, false
	}
	return block, content, cost, true
}
