package promptfmt

import (
	"strings"
	"testing"
)

// regexStrip is the one-pass regular-expression form of
// StripUnknownCitations, the reference the filter must agree with.
func regexStrip(answer string, known map[string]bool) string {
	return citation.ReplaceAllStringFunc(answer, func(m string) string {
		if known[m[1:len(m)-1]] {
			return m
		}
		return ""
	})
}

// TestCitationFilter: whatever the cuts between the pieces (none, every
// two-piece cut, one byte per piece), the filtered pieces spell the whole
// answer with the labels that name no source removed, as the regular
// expression removes them in one pass from the left.
func TestCitationFilter(t *testing.T) {
	known := map[string]bool{"C1": true, "C2": true, "C3": true}
	tests := []struct {
		name, in, want string
		removed        int
	}{
		{"known labels stay", "上限 20MB [C1]，见 [C2][C3]。", "上限 20MB [C1]，见 [C2][C3]。", 0},
		{"an invented label goes", "上限 20MB [C1]，另见 [C7]。", "上限 20MB [C1]，另见 。", 1},
		{"a longer number is another label", "[C12] and [C1]", " and [C1]", 1},
		{"a label's prefix is text", "array[0] [C] [Cx] [C1", "array[0] [C] [Cx] [C1", 0},
		{"a bracket before a label", "[[C7]] [[C1]]", "[] [[C1]]", 1},
		{"removal does not rescan", "[C[C7]1]", "[C1]", 1},
		{"at the very start and end", "[C9]答案[C4]", "答案", 2},
		{"too many digits is text", "[C12345678]", "[C12345678]", 0},
		{"lower case is text", "[c7]", "[c7]", 0},
		{"emoji around labels", "👍[C5]👍[C2]", "👍👍[C2]", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := StripUnknownCitations(tt.in, known)
			if got != tt.want || n != tt.removed {
				t.Fatalf("StripUnknownCitations(%q) = %q, %d; want %q, %d", tt.in, got, n, tt.want, tt.removed)
			}
			if !strings.Contains(tt.in, "[C12345678]") {
				if ref := regexStrip(tt.in, known); ref != tt.want {
					t.Fatalf("the regular expression gives %q, want %q", ref, tt.want)
				}
			}
			for cut := 0; cut <= len(tt.in); cut++ {
				if got := filtered(known, tt.in[:cut], tt.in[cut:]); got != tt.want {
					t.Errorf("cut at byte %d (%q + %q): %q, want %q", cut, tt.in[:cut], tt.in[cut:], got, tt.want)
				}
			}
			perByte := make([]string, len(tt.in))
			for i := 0; i < len(tt.in); i++ {
				perByte[i] = tt.in[i : i+1]
			}
			if got := filtered(known, perByte...); got != tt.want {
				t.Errorf("one byte per piece: %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCitationFilterHoldsOnlyALabelsBeginning: text that cannot begin a
// label is passed on with the piece that brought it; a possible label is
// held until the piece that ends it.
func TestCitationFilterHoldsOnlyALabelsBeginning(t *testing.T) {
	f := NewCitationFilter(map[string]bool{"C1": true})
	steps := []struct{ in, out string }{
		{"单个文件最大 20MB ", "单个文件最大 20MB "},
		{"[C", ""},
		{"1", ""},
		{"]，另见 [", "[C1]，另见 "},
		{"C7]。", "。"},
		{"结尾 [C", "结尾 "},
	}
	for _, s := range steps {
		if got := f.Push(s.in); got != s.out {
			t.Fatalf("Push(%q) = %q, want %q", s.in, got, s.out)
		}
	}
	if got := f.Flush(); got != "[C" {
		t.Fatalf("Flush() = %q, want the unfinished label as text", got)
	}
}

// filtered runs pieces through a new filter and joins what it passes on.
func filtered(known map[string]bool, pieces ...string) string {
	f := NewCitationFilter(known)
	var b strings.Builder
	for _, p := range pieces {
		b.WriteString(f.Push(p))
	}
	b.WriteString(f.Flush())
	return b.String()
}
