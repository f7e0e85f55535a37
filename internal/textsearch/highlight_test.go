package textsearch

import (
	"fmt"
	"slices"
	"testing"
)

func TestHighlight(t *testing.T) {
	tests := []struct {
		text, query string
		want        []string // the highlighted parts of text, in order
	}{
		{"我喜欢猫和狗", "猫", []string{"猫"}},
		{"我喜欢猫和狗", "喜欢猫", []string{"喜欢猫"}},
		{"讨论了部署方案", "部署", []string{"部署"}},
		{"upload: ERR_FILE_TOO_LARGE!", "err_file_too_large", []string{"ERR", "FILE", "TOO", "LARGE"}},
		{"我的ＶＰＮ设备连不上", "vpn 设备", []string{"ＶＰＮ", "设备"}},
		{"ﾗｰﾒﾝ and ラーメン", "ラーメン", []string{"ﾗｰﾒﾝ", "ラーメン"}},
		{"Die STRAẞE, die Straße", "strasse", []string{"STRAẞE", "Straße"}},
		{"cafe\u0301 au lait", "café", []string{"cafe\u0301"}},
		{"서울에서 회의가 있습니다", "회의", []string{"회의"}},
		{"🚀 launch 🚀", "launch", []string{"launch"}},
		{"猫猫 and 猫", "猫", []string{"猫", "猫", "猫"}},
		{"哈哈哈", "哈哈", []string{"哈哈哈"}},
		{"ǅemal ﬁle", "džemal file", []string{"ǅemal", "ﬁle"}},
		{"nothing here", "vpn", nil},
		{"anything", "", nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.text, tt.query), func(t *testing.T) {
			var got []string
			for _, sp := range Highlight(tt.text, Query(tt.query)) {
				got = append(got, tt.text[sp.Start:sp.End])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Highlight(%q, Query(%q)) marks %q, want %q", tt.text, tt.query, got, tt.want)
			}
		})
	}
}

// TestNormalizeMapped checks that the segment-wise normalisation behind
// Highlight gives the same text as Normalize, so Highlight finds exactly the
// tokens that were indexed.
func TestNormalizeMapped(t *testing.T) {
	texts := []string{"ΣΊΣΥΦΟΣ Straße ＶＰＮ ﾗｰﾒﾝ cafe\u0301 ㅋㅋ 👩‍💻 ǅ ﬁ İ"}
	for _, d := range corpus {
		texts = append(texts, d)
	}
	for _, text := range texts {
		s, from, to := normalizeMapped(text)
		if want := Normalize(text); s != want {
			t.Errorf("normalizeMapped(%q) = %q, Normalize = %q", text, s, want)
		}
		if len(from) != len(s) || len(to) != len(s) {
			t.Fatalf("maps of %d/%d entries for %d bytes", len(from), len(to), len(s))
		}
		for i := range s {
			if from[i] >= to[i] || to[i] > len(text) || (i > 0 && from[i] < from[i-1]) {
				t.Fatalf("bad map at %d of %q: [%d,%d)", i, text, from[i], to[i])
			}
		}
	}
}

// TestHighlightCoversTerms checks, for every search of TestBackends and every
// corpus document it finds, that each query term is a token of some
// highlighted part of the original text.
func TestHighlightCoversTerms(t *testing.T) {
	for _, s := range searches {
		terms := Query(s.query)
		for _, id := range s.want {
			text := corpus[id]
			var marked []string
			for _, sp := range Highlight(text, terms) {
				marked = append(marked, Tokens(text[sp.Start:sp.End])...)
			}
			for _, term := range terms {
				if !slices.Contains(marked, term) {
					t.Errorf("query %q on doc %d %q: term %q is in no highlighted part", s.query, id, text, term)
				}
			}
		}
	}
}
