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
	hits, err := scored(ctx, client, convID, query)
	if err != nil {
		return nil, err
	}
	return hits[:min(k, len(hits))], nil
}

// SearchPinned is Search, with the same one read, plus the best chunk of
// each attachment of pinned that the k best do not already hold (an
// attachment the question was asked with: docs/ENGINE.md, "Attachments on
// an ask"), best first. A pinned id that is not a READY attachment of
// convID the viewer may read adds nothing.
func SearchPinned(ctx context.Context, client *ent.Client, convID uuid.UUID, query []float32, k int, pinned []uuid.UUID) ([]Hit, error) {
	if len(pinned) == 0 {
		return Search(ctx, client, convID, query, k)
	}
	hits, err := scored(ctx, client, convID, query)
	if err != nil {
		return nil, err
	}
	out := slices.Clip(hits[:min(max(k, 0), len(hits))])
	has := map[uuid.UUID]bool{}
	for _, h := range out {
		has[h.Attachment.ID] = true
	}
	for _, h := range hits[len(out):] {
		if id := h.Attachment.ID; !has[id] && slices.Contains(pinned, id) {
			has[id] = true
			out = append(out, h)
		}
	}
	return out, nil
}

// scored is every chunk of convID's READY attachments the viewer in ctx
// may read, scored against query, best first.
func scored(ctx context.Context, client *ent.Client, convID uuid.UUID, query []float32) ([]Hit, error) {
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
	return hits, nil
}
