package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
)

// Hit is one retrieved chunk with its document and cosine similarity
// (1 = identical direction).
type Hit struct {
	Chunk    *ent.Chunk
	Document *ent.Document
	Score    float64
}

// Retriever finds the chunks of a knowledge base nearest to a query
// embedding, among those the viewer in ctx may read now. It returns k hits
// whenever at least k readable chunks exist.
type Retriever interface {
	Search(ctx context.Context, knowledgeBaseID uuid.UUID, query []float32, k int) ([]Hit, error)
}
