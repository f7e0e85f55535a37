package tokens

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// longestRun is the longest run of runes of one class in s.
func longestRun(s string) int {
	best, run := 0, 0
	var class uint8
	for _, r := range s {
		if k := runClass(r); k == class {
			run++
		} else {
			class, run = k, 1
		}
		best = max(best, run)
	}
	return best
}

// TestRunPartsBoundTheBytePairMerge: the texts that made tiktoken's
// byte-pair merge quadratic (one piece of tens of thousands of letters,
// symbols, marks or spaces) are tokenised in parts of at most maxRun runes
// of a class, which together are the text; a text without such runs is
// one part; and the counts stay exact where a run is one token a rune,
// within one token a cut elsewhere.
func TestRunPartsBoundTheBytePairMerge(t *testing.T) {
	t.Parallel()
	enc, err := Encoding(CL100KBase)
	if err != nil {
		t.Fatal(err)
	}
	exact := func(s string) int { return len(enc.(*bpeCounter).enc.EncodeOrdinary(s)) }
	for _, tc := range []struct {
		name string
		text string
		// want is the count, or -1 to compare with the exact count
		// within one token per cut.
		want int
	}{
		{"CJK without punctuation", strings.Repeat("长", 60_000), 60_000},
		{"CJK then English", strings.Repeat("设备", 5_000) + " and then some English words.", -1},
		{"latin letters", strings.Repeat("a", 20_000), -1},
		{"symbols", strings.Repeat("!", 20_000), -1},
		{"combining marks", "e" + strings.Repeat("\u0301", 10_000), -1},
		{"spaces", "x" + strings.Repeat(" ", 20_000) + "y", -1},
		{"emoji", strings.Repeat("😀", 5_000), -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var parts []string
			for p := range runParts(tc.text) {
				if n := longestRun(p); n > maxRun {
					t.Fatalf("a part holds a run of %d runes", n)
				}
				parts = append(parts, p)
			}
			if strings.Join(parts, "") != tc.text {
				t.Fatal("the parts are not the text")
			}
			got := enc.Count(tc.text)
			if tc.want >= 0 {
				if got != tc.want {
					t.Fatalf("count %d, want %d", got, tc.want)
				}
				return
			}
			// The exact count of a few thousand runes is affordable.
			if want := exact(tc.text); got < want || got > want+len(parts) {
				t.Fatalf("count %d, exact %d, %d parts", got, want, len(parts))
			}
		})
	}
	t.Run("ordinary texts are one part and counted exactly", func(t *testing.T) {
		t.Parallel()
		files, _ := filepath.Glob("../knowledge/demo/docs/*/*")
		if len(files) == 0 {
			t.Fatal("no demo documents")
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			n := 0
			for range runParts(text) {
				n++
			}
			if n != 1 {
				t.Errorf("%s: %d parts", f, n)
			}
			if got, want := enc.Count(text), exact(text); got != want {
				t.Errorf("%s: count %d, exact %d", f, got, want)
			}
		}
	})
}

// BenchmarkEncodeLongRun tokenises CJK text without punctuation (one
// piece of tiktoken's pattern) whole, as before runParts, and in parts,
// as encode does: the whole piece costs about the square of its length,
// the parts a constant per rune (docs/BENCHMARKS.md, "Expensive input").
// The 60,000-rune whole piece takes tens of seconds: run it with
// -benchtime=1x.
func BenchmarkEncodeLongRun(b *testing.B) {
	enc, err := Encoding(CL100KBase)
	if err != nil {
		b.Fatal(err)
	}
	c := enc.(*bpeCounter)
	for _, n := range []int{2_000, 8_000, 60_000} {
		s := strings.Repeat("语言模型", n/4)
		b.Run("whole/"+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				c.enc.EncodeOrdinary(s)
			}
		})
		b.Run("parts/"+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				c.encode(s)
			}
		})
	}
}
