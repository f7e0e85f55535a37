package attachment

import (
	"context"
	"fmt"

	"github.com/pgvector/pgvector-go"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/attachmentchunk"
	"github.com/ragchat/ragchat/internal/knowledge/chunker"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tokens"
)

// embedBatch is how many chunk texts go to the embedder in one call, and
// insertBatch how many chunks one INSERT stores.
const (
	embedBatch  = 64
	insertBatch = 500
)

// storeChunks cuts text with the knowledge chunker (the sizes knowledge
// documents use), embeds the pieces with Options.Embedder and, in one
// transaction, marks a READY within its attempt and stores the pieces as
// its chunks, tagged with a's conversation and owner so that the privacy
// scope of the attachment applies to them (internal/attachment/README.md);
// the chunks of an earlier attempt that got as far are
// replaced. Without an embedder it stores no chunks: the attachment is
// then READY but never retrieved. It returns the READY attachment, or
// errLost when the attempt was taken over.
func (s *Service) storeChunks(ctx context.Context, a *ent.Attachment, text string) (*ent.Attachment, error) {
	var (
		pieces []chunker.Chunk
		vecs   []pgvector.Vector
	)
	if s.opts.Embedder != nil {
		counter := s.opts.Counter
		if counter == nil {
			counter = tokens.Default()
		}
		var err error
		pieces, err = chunker.Split(ctx, text, chunker.Options{Counter: counter})
		if err != nil {
			return nil, err
		}
		if len(pieces) == 0 {
			return nil, errNoText
		}
		vecs = make([]pgvector.Vector, 0, len(pieces))
		for start := 0; start < len(pieces); start += embedBatch {
			batch := pieces[start:min(start+embedBatch, len(pieces))]
			texts := make([]string, len(batch))
			for i, p := range batch {
				texts[i] = p.Content
			}
			out, err := s.opts.Embedder.Embed(ctx, texts)
			if err != nil {
				return nil, err
			}
			if len(out) != len(texts) {
				return nil, fmt.Errorf("attachment: the embedder returned %d vectors for %d texts", len(out), len(texts))
			}
			for _, v := range out {
				vecs = append(vecs, pgvector.NewVector(v))
			}
		}
	}
	return s.finish(ctx, a, pieces, vecs)
}

// finish is storeChunks' transaction.
func (s *Service) finish(ctx context.Context, a *ent.Attachment, pieces []chunker.Chunk, vecs []pgvector.Vector) (*ent.Attachment, error) {
	tx, err := s.client.Tx(sys(ctx))
	if err != nil {
		return nil, store.DomainError(err, kind)
	}
	ready, err := func() (*ent.Attachment, error) {
		c := tx.Client()
		n, err := c.Attachment.Update().Where(fenced(a.ID, a.Attempts), attachment.StatusEQ(attachment.StatusCHUNKING)).
			SetStatus(attachment.StatusREADY).ClearLeaseUntil().Save(sys(ctx))
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, errLost
		}
		if _, err := c.AttachmentChunk.Delete().Where(attachmentchunk.AttachmentID(a.ID)).Exec(sys(ctx)); err != nil {
			return nil, err
		}
		for start := 0; start < len(pieces); start += insertBatch {
			batch := pieces[start:min(start+insertBatch, len(pieces))]
			creates := make([]*ent.AttachmentChunkCreate, len(batch))
			for i, p := range batch {
				creates[i] = c.AttachmentChunk.Create().
					SetTenantID(a.TenantID).SetOwnerID(a.OwnerID).
					SetAttachmentID(a.ID).SetConversationID(a.ConversationID).
					SetOrdinal(p.Ordinal).SetContent(p.Content).SetTokenCount(p.Tokens).
					SetEmbedding(vecs[start+i])
			}
			if err := c.AttachmentChunk.CreateBulk(creates...).Exec(sys(ctx)); err != nil {
				return nil, err
			}
		}
		return c.Attachment.Get(sys(ctx), a.ID)
	}()
	if err != nil {
		_ = tx.Rollback() // err says why
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return ready.Unwrap(), nil
}
