package attachment

import (
	"context"
	"fmt"

	"github.com/pgvector/pgvector-go"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/knowledge/chunker"
	"github.com/ragchat/ragchat/internal/tokens"
)

// embedBatch is how many chunk texts go to the embedder in one call.
const embedBatch = 64

// storeChunks cuts text with the knowledge chunker (the sizes knowledge
// documents use), embeds the pieces with Options.Embedder and stores them
// as a's chunks, tagged with a's conversation and owner so that the
// privacy scope of the attachment applies to them (docs/ENGINE.md,
// "Attachments"). Without an embedder it stores nothing: the attachment is
// then READY but never retrieved.
func (s *Service) storeChunks(ctx context.Context, a *ent.Attachment, text string) error {
	if s.opts.Embedder == nil {
		return nil
	}
	counter := s.opts.Counter
	if counter == nil {
		counter = tokens.Default()
	}
	pieces, err := chunker.Split(text, chunker.Options{Counter: counter})
	if err != nil {
		return err
	}
	if len(pieces) == 0 {
		return errNoText
	}
	vecs := make([]pgvector.Vector, 0, len(pieces))
	for start := 0; start < len(pieces); start += embedBatch {
		batch := pieces[start:min(start+embedBatch, len(pieces))]
		texts := make([]string, len(batch))
		for i, p := range batch {
			texts[i] = p.Content
		}
		out, err := s.opts.Embedder.Embed(ctx, texts)
		if err != nil {
			return err
		}
		if len(out) != len(texts) {
			return fmt.Errorf("attachment: the embedder returned %d vectors for %d texts", len(out), len(texts))
		}
		for _, v := range out {
			vecs = append(vecs, pgvector.NewVector(v))
		}
	}
	creates := make([]*ent.AttachmentChunkCreate, len(pieces))
	for i, p := range pieces {
		creates[i] = s.client.AttachmentChunk.Create().
			SetTenantID(a.TenantID).SetOwnerID(a.OwnerID).
			SetAttachmentID(a.ID).SetConversationID(a.ConversationID).
			SetOrdinal(p.Ordinal).SetContent(p.Content).SetTokenCount(p.Tokens).
			SetEmbedding(vecs[i])
	}
	return s.client.AttachmentChunk.CreateBulk(creates...).Exec(ctx)
}
