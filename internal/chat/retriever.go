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
	Document *HitDocument
	Score    float64
}

// HitDocument is what a hit carries of its chunk's document: what a
// citation names. The retriever reads it in the search's own statement
// (a join limited to the documents the viewer may read), so it is a plain
// value, not an Ent entity with edges to load.
type HitDocument struct {
	ID      uuid.UUID
	Title   string
	Version int
}

// Retriever finds the chunks of a knowledge base nearest to a query
// embedding, among those the viewer in ctx may read now. It returns k hits
// whenever at least k readable chunks exist.
type Retriever interface {
	Search(ctx context.Context, knowledgeBaseID uuid.UUID, query []float32, k int) ([]Hit, error)
}
