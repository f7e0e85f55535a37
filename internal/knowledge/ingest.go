package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/google/uuid"
	"github.com/pgvector/pgvector-go"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/chunker"
	"github.com/ragchat/ragchat/internal/store"
)

// ingestAttempts bounds how often Ingest re-reads the stored document when
// it changed between the check before embedding and the transaction.
const ingestAttempts = 3

// prepared is a document's chunks and their embeddings, computed before any
// transaction opens.
type prepared struct {
	chunks  []chunker.Chunk
	vectors []pgvector.Vector
}

// Ingest adds a document to a knowledge base of the viewer's tenant, or
// replaces the document with the same SourceURI (the same Title when
// SourceURI is empty):
//
//   - the same content (by SHA-256) leaves the chunks alone; a changed
//     title or access list is applied, anything else returns the stored
//     document unchanged;
//   - different content replaces the chunks and grants atomically and
//     bumps the document's version.
//
// The content is chunked and embedded before the write transaction opens,
// so no transaction waits on the model. A changed access list writes a
// "document.acl_changed" audit event. Errors are BAD_USER_INPUT (invalid
// input), FORBIDDEN (the viewer is no curator), NOT_FOUND (no such
// knowledge base), CONFLICT (the knowledge base uses another embedding
// model) or MODEL_UNAVAILABLE/RATE_LIMITED (embedding failed).
func (s *Service) Ingest(ctx context.Context, kbID uuid.UUID, in DocumentInput) (*ent.Document, error) {
	const action = "ingest documents"
	if _, err := requireCurator(ctx, action); err != nil {
		return nil, err
	}
	v, err := in.validate(s.opts.MaxDocumentBytes)
	if err != nil {
		return nil, err
	}
	kb, err := s.client.KnowledgeBase.Get(ctx, kbID)
	if ent.IsNotFound(err) {
		return nil, domain.NotFound("knowledge base")
	}
	if err != nil {
		return nil, store.DomainError(err, "document")
	}
	if model := s.embedder.EmbeddingModel(); kb.EmbeddingModel != model {
		return nil, domain.Errorf(domain.CodeConflict,
			"the knowledge base is embedded with %q but this server embeds with %q: create a new knowledge base", kb.EmbeddingModel, model)
	}
	sum := checksum(v.content)

	var prep *prepared
	for range ingestAttempts {
		cur, err := findDocument(ctx, s.client, kbID, v, false)
		if err != nil {
			return nil, store.DomainError(err, "document")
		}
		if prep == nil && !unchanged(cur, sum) {
			if prep, err = s.prepare(ctx, v.content); err != nil {
				return nil, err
			}
		}
		doc, retry, err := s.store(ctx, kbID, v, sum, prep)
		if !retry {
			return doc, store.DomainError(err, "document")
		}
	}
	return nil, domain.Errorf(domain.CodeConflict, "the document is being changed concurrently; try again")
}

// checksum is the hex SHA-256 of a document's content.
func checksum(content string) string {
	h := sha256.Sum256([]byte(content))
	return hex.EncodeToString(h[:])
}

// unchanged reports whether doc is stored, ready and has this content.
func unchanged(doc *ent.Document, sum string) bool {
	return doc != nil && doc.Checksum == sum && doc.Status == document.StatusREADY
}

// prepare chunks content and embeds the chunks.
func (s *Service) prepare(ctx context.Context, content string) (*prepared, error) {
	chunks, err := chunker.Split(ctx, content, chunker.Options{
		MaxTokens:     s.opts.ChunkTokens,
		OverlapTokens: s.opts.OverlapTokens,
		Counter:       s.counter,
	})
	if err != nil {
		return nil, err
	}
	if len(chunks) == 0 {
		return nil, domain.Errorf(domain.CodeBadUserInput, "the document has no text")
	}
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.Content
	}
	vectors, err := s.embedAll(ctx, texts)
	if err != nil {
		return nil, err
	}
	return &prepared{chunks: chunks, vectors: vectors}, nil
}
