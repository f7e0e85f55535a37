package textsearch

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// matches reports whether a document with the given tokens matches a query
// with the given terms: every term is one of the tokens. It is the rule both
// indexes implement (tsquery 'a' & 'b', FTS5 "a" AND "b").
func matches(tokens, terms []string) bool {
	if len(terms) == 0 {
		return false
	}
	for _, t := range terms {
		if !slices.Contains(tokens, t) {
			return false
		}
	}
	return true
}

func TestTokens(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"empty", "", []string{}},
		{"whitespace", " \t\n\u3000\u00a0 ", []string{}},
		{"punctuation only", "¿¡…—「」。、!?", []string{}},
		{"latin words", "Hello, World! 42", []string{"hello", "world", "42"}},
		{"underscore splits", "err_file_too_large", []string{"err", "file", "too", "large"}},
		{"upper case", "ERR_FILE_TOO_LARGE", []string{"err", "file", "too", "large"}},
		{"full-width latin", "ＶＰＮ　ｅｒｒｏｒ１２", []string{"vpn", "error12"}},
		{"sharp s folds", "Straße STRASSE", []string{"strasse", "strasse"}},
		{"greek final sigma folds", "ΣΊΣΥΦΟΣ σίσυφος", []string{"σίσυφοσ", "σίσυφοσ"}},
		{"cyrillic", "Привет, МИР", []string{"привет", "мир"}},
		{"diacritics kept", "Café CAFE", []string{"café", "cafe"}},
		{"no stemming", "errors error", []string{"errors", "error"}},
		{"apostrophe splits", "O'Brien's", []string{"o", "brien", "s"}},
		{"combining mark joins", "cafe\u0301 नमस्ते", []string{"café", "नमस्ते"}},
		{"chinese bigrams and singles", "我喜欢猫和狗", []string{
			"我", "我喜", "喜", "喜欢", "欢", "欢猫", "猫", "猫和", "和", "和狗", "狗"}},
		{"one han char", "猫", []string{"猫"}},
		{"chinese punctuation splits runs", "部署，方案", []string{"部", "部署", "署", "方", "方案", "案"}},
		{"mixed script splits", "vpn设备", []string{"vpn", "设", "设备", "备"}},
		{"digits inside cjk", "第3章", []string{"第", "3", "章"}},
		{"japanese kana and prolonged mark", "ラーメン", []string{"ラ", "ラー", "ー", "ーメ", "メ", "メン", "ン"}},
		{"half-width katakana", "ﾗｰﾒﾝ", []string{"ラ", "ラー", "ー", "ーメ", "メ", "メン", "ン"}},
		{"japanese mixed", "東京タワー", []string{"東", "東京", "京", "京タ", "タ", "タワ", "ワ", "ワー", "ー"}},
		{"korean", "서울에서 회의", []string{"서", "서울", "울", "울에", "에", "에서", "서", "회", "회의", "의"}},
		{"hangul compatibility jamo", "ㅋㅋ", []string{"ᄏ", "ᄏᄏ", "ᄏ"}},
		{"emoji separate and are dropped", "🚀launch 🐱", []string{"launch"}},
		{"emoji between cjk", "猫🐱狗", []string{"猫", "狗"}},
		{"zwj emoji sequence", "👩‍💻dev", []string{"dev"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tokens(tt.text)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Tokens(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestQuery(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"empty", "", nil},
		{"whitespace", " \t\n\u3000 ", nil},
		{"emoji only", "🚀🐱", nil},
		{"punctuation only", "___ --- ...", nil},
		{"one han char", "猫", []string{"猫"}},
		{"two han chars", "部署", []string{"部署"}},
		{"cjk run gives bigrams only", "喜欢猫", []string{"喜欢", "欢猫"}},
		{"identifier", "err_file_too_large", []string{"err", "file", "too", "large"}},
		{"vpn and device", "vpn 设备", []string{"vpn", "设备"}},
		{"mixed run", "VPN设备", []string{"vpn", "设备"}},
		{"full width", "ＶＰＮ", []string{"vpn"}},
		{"duplicates removed", "vpn VPN ＶＰＮ 猫 猫", []string{"vpn", "猫"}},
		{"repeated bigram removed", "哈哈哈", []string{"哈哈"}},
		{"japanese", "タワー", []string{"タワ", "ワー"}},
		{"korean", "회의", []string{"회의"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Query(tt.text)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Query(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// fixtures are the search fixtures at the token level plus samples
// in other scripts: query, document, whether it must match.
var fixtures = []struct {
	query, doc string
	match      bool
}{
	{"猫", "我喜欢猫和狗", true},
	{"部署", "讨论了部署方案", true},
	{"err_file_too_large", "ERR_FILE_TOO_LARGE", true},
	{"ERR_FILE_TOO_LARGE", "upload failed: err_file_too_large", true},
	{"vpn 设备", "我的VPN设备连不上", true},
	{"vpn 设备", "公司的设备都装了 vpn", true},
	{"vpn 设备", "vpn is down", false},
	{"vpn 设备", "设备已重启", false},
	{"ＶＰＮ", "the vpn error", true},
	{"喜欢猫", "我喜欢猫和狗", true},
	{"猫狗", "我喜欢猫和狗", false},
	{"東京", "東京タワーに行きました", true},
	{"タワー", "東京タワーに行きました", true},
	{"ﾀﾜｰ", "東京タワーに行きました", true},
	{"서울", "서울에서 회의가 있습니다", true},
	{"회의", "서울에서 회의가 있습니다", true},
	{"부산", "서울에서 회의가 있습니다", false},
	{"strasse", "Die Straße ist lang", true},
	{"ПРИВЕТ", "привет, мир", true},
	{"errors", "an error occurred", false},
}

func TestFixtures(t *testing.T) {
	for _, f := range fixtures {
		if got := matches(Tokens(f.doc), Query(f.query)); got != f.match {
			t.Errorf("query %q on %q: match = %v, want %v (tokens %q, terms %q)",
				f.query, f.doc, got, f.match, Tokens(f.doc), Query(f.query))
		}
	}
}

// TestCJKSubstringsMatch checks that every substring of a CJK document, of
// any length, finds the document: the bigrams of a substring are bigrams of
// the text and its one character is a single-character token.
func TestCJKSubstringsMatch(t *testing.T) {
	for _, doc := range []string{"我喜欢猫和狗", "讨论了部署方案", "東京タワーに行きました", "서울에서회의가있습니다"} {
		tokens := Tokens(doc)
		r := []rune(doc)
		for i := range r {
			for j := i + 1; j <= len(r); j++ {
				if q := string(r[i:j]); !matches(tokens, Query(q)) {
					t.Errorf("substring %q of %q does not match (terms %q)", q, doc, Query(q))
				}
			}
		}
	}
}

// TestLongInput checks the bounds: a document gives at most
// MaxDocumentTokens tokens, a term at most MaxTermBytes bytes (cut at a rune
// boundary, identically for documents and queries), a query at most
// MaxQueryTerms terms.
func TestLongInput(t *testing.T) {
	t.Run("document token cap", func(t *testing.T) {
		for _, unit := range []string{"word ", "猫狗", "vpn设备 "} {
			text := strings.Repeat(unit, 100_000)
			if got := len(Tokens(text)); got != MaxDocumentTokens {
				t.Errorf("Tokens(%d × %q) gave %d tokens, want %d", 100_000, unit, got, MaxDocumentTokens)
			}
		}
	})
	t.Run("term length cap", func(t *testing.T) {
		for _, word := range []string{strings.Repeat("a", 1000), strings.Repeat("é", 1000), strings.Repeat("ж", 33) + "x", "a" + strings.Repeat("\u0301", 500)} {
			toks := Tokens(word + " tail")
			if len(toks) != 2 || toks[1] != "tail" {
				t.Fatalf("Tokens(long word) = %d tokens, want the clipped word and tail", len(toks))
			}
			if len(toks[0]) > MaxTermBytes || !utf8.ValidString(toks[0]) {
				t.Errorf("token of %d bytes (valid UTF-8 %v), want ≤ %d", len(toks[0]), utf8.ValidString(toks[0]), MaxTermBytes)
			}
			if len(toks[0]) < MaxTermBytes-3 {
				t.Errorf("token cut to %d bytes, want the longest whole-rune prefix of ≤ %d", len(toks[0]), MaxTermBytes)
			}
			if !matches(toks, Query(word)) {
				t.Errorf("query of the same long word does not match the document")
			}
		}
	})
	t.Run("query term cap", func(t *testing.T) {
		var b strings.Builder
		for i := range 1000 {
			b.WriteString(strings.Repeat("q", i%50+1) + string(rune('a'+i%26)) + " ")
		}
		if got := len(Query(b.String())); got != MaxQueryTerms {
			t.Errorf("Query(1000 distinct words) gave %d terms, want %d", got, MaxQueryTerms)
		}
	})
}

func TestTSVector(t *testing.T) {
	tests := []struct {
		name   string
		tokens []string
		want   string
	}{
		{"none", nil, ""},
		{"positions", []string{"vpn", "设", "设备", "备", "vpn"}, "'vpn':1,5 '设':2 '设备':3 '备':4"},
		{"quote and backslash", []string{"o'brien", `back\slash`}, `'o''brien':1 'back\\slash':2`},
		{"empty tokens skipped", []string{"", "a"}, "'a':2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TSVector(tt.tokens); got != tt.want {
				t.Errorf("TSVector(%q) = %q, want %q", tt.tokens, got, tt.want)
			}
		})
	}
	t.Run("at most 256 positions", func(t *testing.T) {
		got := TSVector(Tokens(strings.Repeat("a ", 1000)))
		if n := strings.Count(got, ",") + 1; n != maxPositions {
			t.Errorf("TSVector of 1000 × a has %d positions, want %d", n, maxPositions)
		}
	})
}

func TestTSQuery(t *testing.T) {
	tests := []struct {
		terms []string
		want  string
	}{
		{nil, ""},
		{[]string{"猫"}, "'猫'"},
		{[]string{"vpn", "设备"}, "'vpn' & '设备'"},
		{[]string{"it's", `a\b`, ""}, `'it''s' & 'a\\b'`},
	}
	for _, tt := range tests {
		if got := TSQuery(tt.terms); got != tt.want {
			t.Errorf("TSQuery(%q) = %q, want %q", tt.terms, got, tt.want)
		}
	}
}

func TestFTS5Term(t *testing.T) {
	tests := []struct{ term, want string }{
		{"vpn", "vpn"},
		{"h264", "h264"},
		{"42", "42"},
		{"xml", "x786d6c"},
		{"x", "x78"},
		{"猫", "xe78cab"},
		{"café", "x636166c3a9"},
		{`a"b`, "x612262"},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		got := FTS5Term(tt.term)
		if got != tt.want {
			t.Errorf("FTS5Term(%q) = %q, want %q", tt.term, got, tt.want)
		}
		if prev, dup := seen[got]; dup {
			t.Errorf("FTS5Term(%q) = FTS5Term(%q) = %q", tt.term, prev, got)
		}
		seen[got] = tt.term
	}
	// A plain term that looks like an encoding never collides with the term
	// it would encode: "xe78cab" (the word) is encoded again.
	if FTS5Term("xe78cab") == FTS5Term("猫") {
		t.Errorf("the word xe78cab and 猫 share an FTS5 encoding")
	}
}

func TestFTS5DocumentAndMatch(t *testing.T) {
	if got, want := FTS5Document(Tokens("VPN设备 ok")), "vpn xe8aebe xe8aebee5a487 xe5a487 ok"; got != want {
		t.Errorf("FTS5Document = %q, want %q", got, want)
	}
	if got, want := FTS5Document(nil), ""; got != want {
		t.Errorf("FTS5Document(nil) = %q, want %q", got, want)
	}
	if got, want := FTS5Match(Query("vpn 设备 AND or")), `"vpn" AND "xe8aebee5a487" AND "and" AND "or"`; got != want {
		t.Errorf("FTS5Match = %q, want %q", got, want)
	}
	if got := FTS5Match(nil); got != "" {
		t.Errorf("FTS5Match(nil) = %q, want empty", got)
	}
}

// TestConcurrent runs Tokens and Query from many goroutines (the case folders
// are pooled, not shared); run with -race.
func TestConcurrent(t *testing.T) {
	want := Tokens("ＶＰＮ設備 Straße ERR_X")
	done := make(chan []string)
	for range 16 {
		go func() {
			var got []string
			for range 200 {
				got = Tokens("ＶＰＮ設備 Straße ERR_X")
				_ = Query("ＶＰＮ設備 Straße ERR_X")
			}
			done <- got
		}()
	}
	for range 16 {
		if got := <-done; !slices.Equal(got, want) {
			t.Errorf("concurrent Tokens = %q, want %q", got, want)
		}
	}
}
