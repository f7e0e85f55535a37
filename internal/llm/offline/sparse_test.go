package offline

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/ragchat/ragchat/internal/domain"
)

// denseReference is hashVector as it was computed before sparseHash: a
// dense float64 accumulator over every bucket. The sparse computation must
// give the same floats bit for bit, so answers and stored embeddings do not
// change.
func denseReference(counts map[string]int) []float32 {
	v := make([]float64, domain.EmbeddingDimensions)
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h := fnv.New64a()
		_, _ = h.Write([]byte(k))
		sum := h.Sum64()
		sign := 1.0
		if sum>>63 == 1 {
			sign = -1
		}
		v[sum%uint64(domain.EmbeddingDimensions)] += sign * kindWeight(k) * (1 + math.Log(float64(counts[k])))
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, len(v))
	if norm == 0 {
		out[0] = 1
		return out
	}
	inv := 1 / math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x * inv)
	}
	return out
}

// TestSparseHashMatchesDense checks that the sparse embedding, its dense
// form and its dot products are exactly those of the dense computation.
func TestSparseHashMatchesDense(t *testing.T) {
	texts := []string{
		"",
		"?",
		"How large can an uploaded file be?",
		"Uploads are limited to 20 MB per file; larger files get HTTP 413 and ERR_FILE_TOO_LARGE.",
		"The max_upload_size setting changes the limit for a tenant's knowledge base.",
		"上传文件的大小限制是多少？",
		"每个文件最大 20 MB，超过的文件会返回错误 ERR_FILE_TOO_LARGE。",
		"retry retry retry the the the export export job after a failed export",
		"Mixed 中文 and English text with snake_case_identifiers and CamelCase words.",
	}
	for _, a := range texts {
		sa := sparseHash(features(a))
		da := denseReference(features(a))
		got := sa.dense()
		for i := range da {
			if math.Float32bits(got[i]) != math.Float32bits(da[i]) {
				t.Fatalf("%q: bucket %d = %v, dense reference %v", a, i, got[i], da[i])
			}
		}
		hv := hashVector(features(a))
		for i := range da {
			if math.Float32bits(hv[i]) != math.Float32bits(got[i]) {
				t.Fatalf("%q: bucket %d: hashVector %v, sparse %v", a, i, hv[i], got[i])
			}
		}
		for i := 1; i < len(sa.idx); i++ {
			if sa.idx[i-1] >= sa.idx[i] {
				t.Fatalf("%q: buckets not strictly ascending: %v", a, sa.idx)
			}
		}
		for _, b := range texts {
			sb := sparseHash(features(b))
			want := dot(da, denseReference(features(b)))
			if got := dotSparse(sa, sb); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("dot(%q, %q) = %v, dense %v", a, b, got, want)
			}
		}
	}
}

// TestSentenceVectorCache checks that cached sentence vectors equal freshly
// computed ones, and that the cache stays within its size.
func TestSentenceVectorCache(t *testing.T) {
	s := "Uploads are limited to 20 MB per file; larger files get HTTP 413."
	first := sentenceVector(s)
	again := sentenceVector(s)
	fresh := sparseHash(features(s))
	if !slices.Equal(first.idx, fresh.idx) || !slices.Equal(first.val, fresh.val) ||
		!slices.Equal(again.idx, fresh.idx) || !slices.Equal(again.val, fresh.val) {
		t.Fatalf("cached vector differs from a fresh one")
	}
	for i := range sentenceCacheSize + 100 {
		sentenceVector(fmt.Sprintf("sentence number %d about uploads", i))
		if n := sentenceVectors.Len(); n > sentenceCacheSize {
			t.Fatalf("cache holds %d vectors, more than %d", n, sentenceCacheSize)
		}
	}
	if _, ok := sentenceVectors.Peek(s); ok {
		t.Fatalf("the least recently used sentence was not evicted")
	}
}
