package textsearch

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTokens checks invariants on arbitrary text: tokens and terms are
// non-empty valid UTF-8 of at most MaxTermBytes without separators; a text
// searched for itself matches (Query(text) ⊆ Tokens(text) when the document
// is not cut); Highlight ranges lie inside the text, in order, and the
// encodings never produce what the indexes would re-split.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{"", "我喜欢猫和狗", "ERR_FILE_TOO_LARGE", "vpn设备", "ＶＰＮ", "ﾗｰﾒﾝ", "ǅ ﬁ İ ΣΊΣΥΦΟΣ",
		"cafe\u0301", "\u0301\u0301x", "猫\u0301狗", "👩‍💻", "a'b\\c\"d", "서울에서 회의", "\xff\xfe猫"} {
		f.Add(s)
	}
	for _, d := range corpus {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tokens, terms := Tokens(text), Query(text)
		for _, tk := range append(slices.Clone(tokens), terms...) {
			if tk == "" || len(tk) > MaxTermBytes || !utf8.ValidString(tk) {
				t.Fatalf("bad term %q from %q", tk, text)
			}
			for _, r := range tk {
				if classOf(r) == separator {
					t.Fatalf("term %q from %q contains separator %U", tk, text, r)
				}
			}
			if enc := FTS5Term(tk); strings.ContainsAny(enc, " \"'") || strings.ToLower(enc) != enc {
				t.Fatalf("FTS5Term(%q) = %q", tk, enc)
			}
		}
		if len(tokens) < MaxDocumentTokens && len(terms) > 0 && !matches(tokens, terms) {
			t.Fatalf("%q does not find itself: terms %q, tokens %q", text, terms, tokens)
		}
		if len(terms) == 0 && len(tokens) > 0 {
			t.Fatalf("%q has tokens %q but an empty query", text, tokens)
		}
		prev := 0
		spans := Highlight(text, terms)
		if len(terms) > 0 && len(spans) == 0 {
			t.Fatalf("Highlight(%q, its own terms) is empty", text)
		}
		for _, sp := range spans {
			if sp.Start < prev || sp.End <= sp.Start || sp.End > len(text) {
				t.Fatalf("Highlight(%q) gave bad range %v after %d", text, sp, prev)
			}
			prev = sp.End
		}
	})
}
