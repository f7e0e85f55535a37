package openai

import (
	"context"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/ragchat/ragchat/internal/llm"
)

// Embed embeds texts in batches of EmbeddingBatchSize, asking for
// EmbeddingDimensions dimensions when RequestDimensions is set. Every
// vector is zero-padded to domain.EmbeddingDimensions and L2-normalised; a
// longer vector is an error. Empty texts are sent as a single space, which
// providers accept.
func (m *Model) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for start := 0; start < len(texts); start += m.cfg.EmbeddingBatchSize {
		end := min(start+m.cfg.EmbeddingBatchSize, len(texts))
		if err := m.embedBatch(ctx, texts[start:end], out[start:end]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (m *Model) embedBatch(ctx context.Context, texts []string, out [][]float32) error {
	input := make([]string, len(texts))
	for i, t := range texts {
		if t == "" {
			t = " "
		}
		input[i] = t
	}
	req := goopenai.EmbeddingRequest{Input: input, Model: goopenai.EmbeddingModel(m.cfg.EmbeddingModel)}
	if m.cfg.RequestDimensions {
		req.Dimensions = m.cfg.EmbeddingDimensions
	}
	reqCtx, cancel := m.requestContext(ctx)
	defer cancel()
	var resp goopenai.EmbeddingResponse
	err := m.withRetry(ctx, reqCtx, func() (err error) {
		resp, err = attemptOnce(ctx, reqCtx, func(actx context.Context) (goopenai.EmbeddingResponse, error) {
			return m.embedder.CreateEmbeddings(actx, req)
		})
		return err
	})
	if err != nil {
		return err
	}
	if len(resp.Data) != len(texts) {
		return llm.Errorf(llm.KindUpstream, "embeddings: got %d vectors for %d inputs", len(resp.Data), len(texts))
	}
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(out) || out[d.Index] != nil {
			return llm.Errorf(llm.KindUpstream, "embeddings: bad or repeated index %d", d.Index)
		}
		v, err := llm.FitDimensions(d.Embedding)
		if err != nil {
			return err
		}
		out[d.Index] = v
	}
	return nil
}
