package knowledge

import (
	"context"
	"fmt"
	"math"

	"github.com/pgvector/pgvector-go"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
)

// embedAll embeds texts in batches of s.opts.EmbedBatch. It holds no
// transaction: model calls may take seconds. Model failures become
// MODEL_UNAVAILABLE or RATE_LIMITED domain errors; a cancelled or expired
// ctx returns the context's error.
func (s *Service) embedAll(ctx context.Context, texts []string) ([]pgvector.Vector, error) {
	out := make([]pgvector.Vector, 0, len(texts))
	for start := 0; start < len(texts); start += s.opts.EmbedBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch := texts[start:min(start+s.opts.EmbedBatch, len(texts))]
		vecs, err := s.embedder.Embed(ctx, batch)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			return nil, llm.DomainError(err)
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("knowledge: the embedder returned %d vectors for %d texts", len(vecs), len(batch))
		}
		for i, v := range vecs {
			if err := checkVector(v); err != nil {
				return nil, fmt.Errorf("knowledge: embedding of chunk %d: %w", start+i, err)
			}
			out = append(out, pgvector.NewVector(v))
		}
	}
	return out, nil
}

// checkVector verifies that v has domain.EmbeddingDimensions finite values
// and is not the zero vector (whose cosine distance is undefined).
func checkVector(v []float32) error {
	if len(v) != domain.EmbeddingDimensions {
		return fmt.Errorf("%d dimensions, want %d", len(v), domain.EmbeddingDimensions)
	}
	var sum float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("non-finite value")
		}
		sum += f * f
	}
	if sum == 0 {
		return fmt.Errorf("zero vector")
	}
	return nil
}
