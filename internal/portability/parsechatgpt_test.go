package portability

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// ladderExport is a ChatGPT export of one question and levels answers,
// each but the last followed by two answer continuations (the next rung
// and a leaf), each text size bytes: the shape that used to be copied
// quadratically.
func ladderExport(levels, size int) string {
	var b strings.Builder
	node := func(key, role, parent string, at int, kids ...string) {
		if b.Len() > len(`[{"mapping": {`) {
			b.WriteString(",")
		}
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		fmt.Fprintf(&b, `"%s": {"message": {"author": {"role": %q}, "content": {"content_type": "text", "parts": [%q]}, "create_time": %d}, "parent": %s, "children": [`,
			key, role, (key + " " + strings.Repeat("x", size))[:size], at, p)
		for i, k := range kids {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%q", k)
		}
		b.WriteString("]}")
	}
	b.WriteString(`[{"mapping": {`)
	node("q", "user", "", 1, "a1")
	for k := 1; k <= levels; k++ {
		parent := "q"
		if k > 1 {
			parent = fmt.Sprintf("a%d", k-1)
		}
		var kids []string
		if k < levels {
			kids = []string{fmt.Sprintf("a%d", k+1), fmt.Sprintf("b%d", k+1)}
		}
		node(fmt.Sprintf("a%d", k), "assistant", parent, 1+2*k, kids...)
		if k > 1 {
			node(fmt.Sprintf("b%d", k), "assistant", parent, 2+2*k)
		}
	}
	b.WriteString("}}]")
	return b.String()
}

// chainExport is a ChatGPT export whose mapping is one chain of nodes
// nodes without a message above one question.
func chainExport(nodes int) string {
	var b strings.Builder
	b.WriteString(`[{"mapping": {"n0": {}`)
	for i := 1; i < nodes; i++ {
		fmt.Fprintf(&b, `, "n%d": {"parent": "n%d"}`, i, i-1)
	}
	fmt.Fprintf(&b, `, "q": {"message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["q"]}}, "parent": "n%d"}}}]`, nodes-1)
	return b.String()
}

// allocated is the bytes parseChatGPT allocates to parse content.
func allocated(t *testing.T, content string) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	drafts, err := parseChatGPT(context.Background(), content, &budget{lim: DefaultLimits().withDefaults()})
	runtime.ReadMemStats(&after)
	if err != nil || len(drafts) != 1 {
		t.Fatalf("parse: %d drafts, %v", len(drafts), err)
	}
	return after.TotalAlloc - before.TotalAlloc
}

// TestParseChatGPTLinear parses inputs of one shape at two sizes: twice
// the input allocates at most about twice the bytes (a quadratic parse,
// as the answer ladder's used to be, allocates four times as much).
func TestParseChatGPTLinear(t *testing.T) {
	cases := []struct {
		name        string
		small, big  string
		bytesFactor float64
	}{
		{"an answer ladder", ladderExport(400, 200), ladderExport(800, 200), 2.6},
		{"a chain of empty nodes", chainExport(20000), chainExport(40000), 2.6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			small, big := allocated(t, tc.small), allocated(t, tc.big)
			if r := float64(big) / float64(small); r > tc.bytesFactor {
				t.Errorf("%d bytes allocated for %d bytes of input, %d for %d: ×%.1f, want at most ×%.1f",
					small, len(tc.small), big, len(tc.big), r, tc.bytesFactor)
			}
		})
	}
}

// BenchmarkParseChatGPT parses ChatGPT exports made to be expensive, near
// the 2 MiB content bound: an answer ladder (every answer with two answer
// continuations) and a chain of 60,000 nodes without a message.
func BenchmarkParseChatGPT(b *testing.B) {
	for _, bc := range []struct {
		name    string
		content string
	}{
		{"ladder", ladderExport(2500, 300)},
		{"chain", chainExport(60000)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			lim := DefaultLimits().withDefaults()
			lim.Messages = 1 << 20
			b.SetBytes(int64(len(bc.content)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := parseChatGPT(context.Background(), bc.content, &budget{lim: lim}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
