package offline

import (
	"context"

	"github.com/ragchat/ragchat/internal/llm"
)

// Embed returns deterministic hashed embeddings (see features): unit
// vectors of domain.EmbeddingDimensions floats. Texts that share words or
// Chinese character n-grams are close by cosine similarity.
func (m *Model) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, llm.ContextError(err)
			}
		}
		out[i] = embed(t)
	}
	return out, nil
}

// embed is the hashed embedding of one text.
func embed(s string) []float32 { return hashVector(features(s)) }

// dot is the cosine similarity of two unit vectors.
func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
