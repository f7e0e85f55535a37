package llm

import (
	"fmt"
	"math"

	"github.com/ragchat/ragchat/internal/domain"
)

// FitDimensions returns v as a unit vector of exactly
// domain.EmbeddingDimensions floats: shorter vectors are zero-padded (which
// leaves cosine distances unchanged) and then L2-normalised. It fails for a
// longer vector, an all-zero vector and non-finite values.
func FitDimensions(v []float32) ([]float32, error) {
	if len(v) > domain.EmbeddingDimensions {
		return nil, Errorf(KindUpstream, "embedding has %d dimensions, more than %d; ask the provider for %d dimensions",
			len(v), domain.EmbeddingDimensions, domain.EmbeddingDimensions)
	}
	out := make([]float32, domain.EmbeddingDimensions)
	copy(out, v)
	if err := Normalize(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Normalize scales v in place to unit L2 length. It fails for an all-zero
// vector and for non-finite values.
func Normalize(v []float32) error {
	var sum float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return Errorf(KindUpstream, "embedding has a non-finite value")
		}
		sum += f * f
	}
	if sum == 0 {
		return &Error{Kind: KindUpstream, Message: "embedding is the zero vector", Err: fmt.Errorf("zero norm")}
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return nil
}

// Cosine returns the cosine similarity of two vectors of equal length
// (their dot product when both are unit vectors); of a longer vector, only
// the shorter's length counts.
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
