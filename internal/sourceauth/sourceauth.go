// Package sourceauth re-authorises citation snapshots (sources), and the
// attachments a question names (AttachmentsOf), for the reader in ctx, as
// a fresh query would (docs/ENGINE.md D13: sources are
// re-checked on every use): the one place that decides which cited chunks,
// documents and attachments a reader may see now. The engine's streams,
// the resolvers, export, forks and share links call it;
// internal/authwatch's access stamps say when a verdict may be reused.
package sourceauth

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/store"
)

// View is a citation snapshot as the viewer may see it now: when the
// viewer can no longer read the chunk (ACL changed, document deleted),
// Available is false and the snippet must not be shown.
type View struct {
	Source    *ent.Source
	Available bool
}

// OfAttempt returns an attempt's citation snapshots, re-authorised now.
func OfAttempt(ctx context.Context, client *ent.Client, attemptID uuid.UUID) ([]View, error) {
	srcs, err := client.Source.Query().
		Where(source.AttemptID(attemptID)).
		Order(ent.Asc(source.FieldRank)).
		All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "attempt")
	}
	return Of(ctx, client, srcs)
}

// Of re-authorises loaded source rows with at most two privacy-filtered
// queries (their chunks, and their attachments when some source is an
// attachment's): a snapshot is available only while the viewer in ctx may
// still read its chunk (docs/ENGINE.md D13: sources are re-checked on
// every use).
func Of(ctx context.Context, client *ent.Client, sources []*ent.Source) ([]View, error) {
	ids := make([]uuid.UUID, 0, len(sources))
	for _, s := range sources {
		if s.ChunkID != nil {
			ids = append(ids, *s.ChunkID)
		}
	}
	readable, err := ReadableChunks(ctx, client, ids)
	if err != nil {
		return nil, store.DomainError(err, "source")
	}
	attached, err := readableCitedAttachments(ctx, client, sources)
	if err != nil {
		return nil, store.DomainError(err, "source")
	}
	out := make([]View, len(sources))
	for i, s := range sources {
		ok := s.ChunkID != nil && readable[*s.ChunkID]
		if s.Kind == source.KindATTACHMENT {
			ok = s.AttachmentID != nil && attached[*s.AttachmentID]
		}
		out[i] = View{Source: s, Available: ok}
	}
	return out, nil
}

// readableCitedAttachments returns which attachments that sources cite
// the viewer may read now (ReadableAttachments). It runs a query only when
// some source is an attachment's.
func readableCitedAttachments(ctx context.Context, client *ent.Client, sources []*ent.Source) (map[uuid.UUID]bool, error) {
	var ids []uuid.UUID
	for _, s := range sources {
		if s.Kind == source.KindATTACHMENT && s.AttachmentID != nil {
			ids = append(ids, *s.AttachmentID)
		}
	}
	return ReadableAttachments(ctx, client, ids)
}

// ReadableAttachments returns which of the attachments ids the viewer in
// ctx may read now (Ent privacy: the conversation's owner, an agent under
// a grant), with one privacy-filtered query; a deleted attachment or
// conversation is unavailable like a deleted document.
func ReadableAttachments(ctx context.Context, client *ent.Client, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	return visibleSet(ids, func() ([]uuid.UUID, error) {
		return client.Attachment.Query().Where(attachment.IDIn(ids...)).IDs(ctx)
	})
}

// ReadableDocuments returns which of the documents ids the viewer in ctx
// may read now, with one privacy-filtered query.
func ReadableDocuments(ctx context.Context, client *ent.Client, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	return visibleSet(ids, func() ([]uuid.UUID, error) {
		return client.Document.Query().Where(document.IDIn(ids...)).IDs(ctx)
	})
}

// ReadableChunks returns which of ids the viewer in ctx may read now, with
// one privacy-filtered query: the one answer to "which chunks may this
// reader see", for sources, forks and shares alike.
func ReadableChunks(ctx context.Context, client *ent.Client, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	return visibleSet(ids, func() ([]uuid.UUID, error) {
		return client.Chunk.Query().Where(chunk.IDIn(ids...)).IDs(ctx)
	})
}

// visibleSet returns the set of the ids that visible, a privacy-filtered
// query of ids, returns; it runs the query only when there are ids.
func visibleSet(ids []uuid.UUID, visible func() ([]uuid.UUID, error)) (map[uuid.UUID]bool, error) {
	out := make(map[uuid.UUID]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	found, err := visible()
	if err != nil {
		return nil, err
	}
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}
