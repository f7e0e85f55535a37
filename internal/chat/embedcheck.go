package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/llm"
)

// checkEmbeddingModel refuses to search a knowledge base whose chunks were
// embedded by another model than the one the engine embeds questions with:
// the vectors would not be comparable and retrieval would silently return
// noise. The answer is remembered per knowledge base (a knowledge base's
// embedding model does not change without re-ingesting it), for the
// maxKBModels knowledge bases used last.
func (e *Engine) checkEmbeddingModel(ctx context.Context, kbID uuid.UUID) error {
	want := e.model.EmbeddingModel()
	if got, ok := e.kbModels.Get(kbID); ok {
		return embeddingMismatch(got, want)
	}
	kb, err := e.client.KnowledgeBase.Get(ctx, kbID)
	if err != nil {
		return err
	}
	e.kbModels.Add(kbID, kb.EmbeddingModel)
	return embeddingMismatch(kb.EmbeddingModel, want)
}

// maxKBModels bounds the knowledge bases whose embedding model an engine
// remembers.
const maxKBModels = 4096

func embeddingMismatch(kbModel, engineModel string) error {
	if kbModel == engineModel {
		return nil
	}
	return llm.Errorf(llm.KindBadRequest,
		"the knowledge base was embedded with %q but this server embeds questions with %q; re-ingest it or configure the same embedding model",
		kbModel, engineModel)
}
