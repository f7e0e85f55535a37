package attachment

import (
	"cmp"
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/attachmentchunk"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/store"
)

// A Hit is one attachment chunk retrieved for an ask, with its attachment
// and cosine similarity (1 = identical direction).
type Hit struct {
	Chunk      *ent.AttachmentChunk
	Attachment *ent.Attachment
	Score      float64
}

// Search returns the k chunks of conversation convID's READY attachments
// most similar to query, best first, among those the viewer in ctx may
// read (Ent privacy: the conversation's owner, an admin, an agent under a
// grant; never a DELETED conversation's). Only chunks of convID are ever
// read, so an ask in another conversation of the same user never sees
// them. A conversation holds few attachment chunks, so they are scored
// exactly in Go on both backends.
func (s *Service) Search(ctx context.Context, convID uuid.UUID, query []float32, k int) ([]Hit, error) {
	return Search(ctx, s.client, convID, query, k)
}

// Search is Service.Search over client, for the chat engine, which needs
// no blob store to retrieve.
func Search(ctx context.Context, client *ent.Client, convID uuid.UUID, query []float32, k int) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	chunks, err := client.AttachmentChunk.Query().
		Where(
			attachmentchunk.ConversationID(convID),
			attachmentchunk.HasAttachmentWith(attachment.StatusEQ(attachment.StatusREADY)),
		).
		WithAttachment().
		All(ctx)
	if err != nil {
		return nil, store.DomainError(err, kind)
	}
	hits := make([]Hit, 0, len(chunks))
	for _, c := range chunks {
		a := c.Edges.Attachment
		if a == nil || a.ConversationID != convID || a.Status != attachment.StatusREADY {
			continue // not readable through the attachment's own policy
		}
		v := c.Embedding.Slice()
		if len(v) != len(query) {
			continue
		}
		hits = append(hits, Hit{Chunk: c, Attachment: a, Score: llm.Cosine(query, v)})
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return slices.Compare(a.Chunk.ID[:], b.Chunk.ID[:])
	})
	return hits[:min(k, len(hits))], nil
}
