package llm_test

import (
	"testing"

	"github.com/ragchat/ragchat/internal/llm"
)

func BenchmarkNeedsHistory(b *testing.B) {
	qs := []string{"什么是RAG？", "那它有什么缺点？", "How do I create an HNSW index in PostgreSQL?", "What about bank cards?"}
	for b.Loop() {
		for _, q := range qs {
			llm.NeedsHistory(q, true)
		}
	}
}
