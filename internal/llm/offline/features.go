package offline

import (
	"cmp"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm/internal/text"
)

// Feature weights: Chinese character bigrams carry most of the meaning of
// Chinese text and single characters are ambiguous. (Trigrams were tried
// and did not improve retrieval.)
const (
	weightWord     = 1.0
	weightWordPart = 0.5
	weightWordPair = 0.5
	weightHan1     = 0.3
	weightHan2     = 1.0
)

// hanEdgeStop are particles that make an n-gram noise when it starts or
// ends with one ("的错", "了解").
const hanEdgeStop = "的了是和与或及"

// features returns the weighted features of s: lower-cased Latin words
// (identifiers also by their parts), adjacent word pairs, and Chinese
// character unigrams and bigrams. Question words, particles and
// English stop words are dropped.
func features(s string) map[string]int {
	counts := map[string]int{}
	add := func(key string) { counts[key]++ }
	s = text.RemoveZHQuestionWords(s)

	words := text.LowerWords(s)
	var content []string
	for _, w := range words {
		if text.ENStopWords[w] {
			continue
		}
		w = stem(w)
		content = append(content, w)
		add("w:" + w)
		if strings.Contains(w, "_") {
			for _, p := range strings.Split(w, "_") {
				if p != "" && !text.ENStopWords[p] {
					add("wp:" + p)
				}
			}
		}
	}
	for i := 1; i < len(content); i++ {
		add("p:" + content[i-1] + " " + content[i])
	}

	for _, run := range hanRuns(s) {
		for i := range run {
			if !strings.ContainsRune(text.ZHFillers, run[i]) {
				add("h1:" + string(run[i]))
			}
			if i+2 <= len(run) && !edgeStop(run[i:i+2]) {
				add("h2:" + string(run[i:i+2]))
			}
		}
	}
	return counts
}

func edgeStop(g []rune) bool {
	return strings.ContainsRune(hanEdgeStop, g[0]) || strings.ContainsRune(hanEdgeStop, g[len(g)-1])
}

// hanRuns returns the maximal runs of CJK ideographs in s.
func hanRuns(s string) [][]rune {
	var out [][]rune
	var cur []rune
	for _, r := range s {
		if text.IsHan(r) {
			cur = append(cur, r)
			continue
		}
		if len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// hashVector folds weighted features into a unit vector of
// domain.EmbeddingDimensions floats: each feature is hashed with FNV-1a to
// a bucket and a sign, and weighted by its kind times a sublinear term
// frequency, 1 + ln(count). Keys are visited in
// sorted order so that the floating-point sums are reproducible.
func hashVector(counts map[string]int) []float32 {
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
		bucket := sum % uint64(domain.EmbeddingDimensions)
		sign := 1.0
		if sum>>63 == 1 {
			sign = -1
		}
		v[bucket] += sign * kindWeight(k) * (1 + math.Log(float64(counts[k])))
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, len(v))
	if norm == 0 {
		// Text without any feature still gets a unit vector, so that cosine
		// distances stay defined; it is close to nothing in particular.
		out[0] = 1
		return out
	}
	inv := 1 / math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x * inv)
	}
	return out
}

// sparseVector is a hashed embedding stored as its non-zero entries in
// ascending bucket order. The answer composer scores dozens of evidence
// sentences per answer; a sentence has a few dozen features, so its dense
// vector (1,024 floats, built in float64 and normalised) cost far more than
// the features themselves.
type sparseVector struct {
	idx []int32
	val []float32
}

// sparseTerm is one feature's contribution to a bucket.
type sparseTerm struct {
	bucket int32
	w      float64
}

// sparseHash computes hashVector's vector as a sparseVector. It adds the
// same terms in the same order (keys sorted; per bucket in key order) and
// sums the norm over buckets in ascending order, so dense() is bit for bit
// what the dense computation gives (zeros add nothing to a sum).
func sparseHash(counts map[string]int) sparseVector {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	terms := make([]sparseTerm, 0, len(keys))
	for _, k := range keys {
		h := fnv.New64a()
		_, _ = h.Write([]byte(k))
		sum := h.Sum64()
		sign := 1.0
		if sum>>63 == 1 {
			sign = -1
		}
		terms = append(terms, sparseTerm{
			bucket: int32(sum % uint64(domain.EmbeddingDimensions)),
			w:      sign * kindWeight(k) * (1 + math.Log(float64(counts[k]))),
		})
	}
	// Stable: the terms of one bucket keep their key order.
	slices.SortStableFunc(terms, func(a, b sparseTerm) int { return cmp.Compare(a.bucket, b.bucket) })
	idx := make([]int32, 0, len(terms))
	acc := make([]float64, 0, len(terms))
	for _, t := range terms {
		if n := len(idx); n > 0 && idx[n-1] == t.bucket {
			acc[n-1] += t.w
			continue
		}
		idx = append(idx, t.bucket)
		acc = append(acc, t.w)
	}
	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	if norm == 0 {
		// Text without any feature still gets a unit vector, so that cosine
		// distances stay defined; it is close to nothing in particular.
		return sparseVector{idx: []int32{0}, val: []float32{1}}
	}
	inv := 1 / math.Sqrt(norm)
	val := make([]float32, len(acc))
	for i, x := range acc {
		val[i] = float32(x * inv)
	}
	return sparseVector{idx: idx, val: val}
}

// dense returns v as domain.EmbeddingDimensions floats.
func (v sparseVector) dense() []float32 {
	out := make([]float32, domain.EmbeddingDimensions)
	for i, b := range v.idx {
		out[b] = v.val[i]
	}
	return out
}

// dotSparse is dot for sparse vectors: the products of the buckets both
// hold, summed in ascending bucket order, which is what dot sums (the
// other products are zero).
func dotSparse(a, b sparseVector) float64 {
	var s float64
	for i, j := 0, 0; i < len(a.idx) && j < len(b.idx); {
		switch {
		case a.idx[i] < b.idx[j]:
			i++
		case a.idx[i] > b.idx[j]:
			j++
		default:
			s += float64(a.val[i]) * float64(b.val[j])
			i++
			j++
		}
	}
	return s
}

func kindWeight(key string) float64 {
	switch key[:strings.IndexByte(key, ':')] {
	case "w":
		return weightWord
	case "wp":
		return weightWordPart
	case "p":
		return weightWordPair
	case "h1":
		return weightHan1
	default:
		return weightHan2
	}
}

// stem strips the commonest English inflections and a final "e" so that
// "refunds"/"refund" and "configured"/"configure" share a feature. It is
// deliberately crude and only has to be consistent.
func stem(w string) string {
	if len(w) < 4 || strings.ContainsAny(w, "_0123456789") {
		return w
	}
	n := len(w)
	switch {
	case strings.HasSuffix(w, "ies") && n > 4:
		w = w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:n-2]
	case strings.HasSuffix(w, "ing") && n-3 >= 3:
		w = w[:n-3]
	case strings.HasSuffix(w, "ed") && n-2 >= 3:
		w = w[:n-2]
	case strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes"):
		w = w[:n-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}
