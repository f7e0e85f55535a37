// Package staleness compares an attempt's sources with the current
// versions of their documents, as the reader in ctx may see them now
// (internal/staleness/README.md; docs/API.md, "Stale answers"). Its
// reads go through Ent's privacy rules with the reader's viewer, so a
// document the reader may no longer read is UNAVAILABLE, without detail.
package staleness

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/store"
)

// SourceChange is how a cited document differs from the version a source
// snapshotted (docs/API.md, "Stale answers").
type SourceChange string

// The source changes.
const (
	// SourceChanged: the document's current version is not the cited one.
	SourceChanged SourceChange = "CHANGED"
	// SourceDeleted: the document no longer exists.
	SourceDeleted SourceChange = "DELETED"
	// SourceUnavailable: the viewer may not read the document now; no
	// detail is given.
	SourceUnavailable SourceChange = "UNAVAILABLE"
)

// SourceStaleness is one source of an attempt that is not current. The
// versions and StillContainsCitedText are set only for SourceChanged;
// StillContainsCitedText is nil when the source has no cited chunk hash
// (written before content hashes, its chunk gone by the backfill).
type SourceStaleness struct {
	Source                 *ent.Source
	Change                 SourceChange
	CitedVersion           *int
	CurrentVersion         *int
	StillContainsCitedText *bool
}

// AttemptStaleness is whether an attempt's evidence changed since it was
// written: Stale when a source's document was deleted, or changed without
// still containing the cited text. Sources lists every source that is not
// current, in rank order.
type AttemptStaleness struct {
	Stale   bool
	Sources []SourceStaleness
}

// Of compares the sources of att, which the caller has already read as
// the viewer, with the current versions of their documents, as the viewer
// in ctx may see them through client. It costs at most three
// privacy-filtered queries, however many sources the attempt has: its
// sources, their documents, and the current chunks that carry the cited
// hashes.
func Of(ctx context.Context, client *ent.Client, att *ent.Attempt) (*AttemptStaleness, error) {
	srcs, err := client.Source.Query().
		Where(source.AttemptID(att.ID)).
		Order(ent.Asc(source.FieldRank)).
		All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "attempt")
	}
	docIDs := make([]uuid.UUID, 0, len(srcs))
	seen := map[uuid.UUID]bool{}
	for _, s := range srcs {
		if s.DocumentID != nil && !seen[*s.DocumentID] {
			seen[*s.DocumentID] = true
			docIDs = append(docIDs, *s.DocumentID)
		}
	}
	versions, err := visibleVersions(ctx, client, docIDs)
	if err != nil {
		return nil, err
	}
	out := &AttemptStaleness{Sources: []SourceStaleness{}}
	var changed []int // indexes into out.Sources
	for _, s := range srcs {
		switch {
		case s.Kind == source.KindATTACHMENT && s.AttachmentID != nil:
			// An attachment's text never changes (its row and bytes are
			// immutable); once deleted, attachment_id is NULL: deleted.
			continue
		case s.DocumentID == nil && s.ChunkHash != nil:
			out.Sources = append(out.Sources, SourceStaleness{Source: s, Change: SourceDeleted})
		case s.DocumentID == nil:
			// No document and no hash: a redacted copy (fork) or a
			// snapshot from before hashes; nothing can be said.
			out.Sources = append(out.Sources, SourceStaleness{Source: s, Change: SourceUnavailable})
		default:
			cur, ok := versions[*s.DocumentID]
			if !ok {
				out.Sources = append(out.Sources, SourceStaleness{Source: s, Change: SourceUnavailable})
				continue
			}
			if cur == s.DocumentVersion {
				continue
			}
			cited := s.DocumentVersion
			changed = append(changed, len(out.Sources))
			out.Sources = append(out.Sources, SourceStaleness{
				Source: s, Change: SourceChanged, CitedVersion: &cited, CurrentVersion: &cur,
			})
		}
	}
	if err := fillStillContains(ctx, client, out.Sources, changed); err != nil {
		return nil, err
	}
	for _, s := range out.Sources {
		if s.Change == SourceDeleted || (s.Change == SourceChanged && (s.StillContainsCitedText == nil || !*s.StillContainsCitedText)) {
			out.Stale = true
		}
	}
	return out, nil
}

// visibleVersions returns the current version of each of ids the viewer
// may read now, with one privacy-filtered query; hidden and deleted ones
// are absent.
func visibleVersions(ctx context.Context, client *ent.Client, ids []uuid.UUID) (map[uuid.UUID]int, error) {
	out := make(map[uuid.UUID]int, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ID      uuid.UUID `json:"id"`
		Version int       `json:"version"`
	}
	err := client.Document.Query().
		Where(document.IDIn(ids...)).
		Select(document.FieldID, document.FieldVersion).
		Scan(ctx, &rows)
	if err != nil {
		return nil, store.DomainError(err, "document")
	}
	for _, r := range rows {
		out[r.ID] = r.Version
	}
	return out, nil
}

// fillStillContains sets StillContainsCitedText on the CHANGED sources at
// idx, with one privacy-filtered query for the current chunks of their
// documents that carry one of the cited hashes.
func fillStillContains(ctx context.Context, client *ent.Client, list []SourceStaleness, idx []int) error {
	var (
		docs   []uuid.UUID
		hashes []string
	)
	for _, i := range idx {
		if h := list[i].Source.ChunkHash; h != nil {
			docs = append(docs, *list[i].Source.DocumentID)
			hashes = append(hashes, *h)
		}
	}
	present := map[uuid.UUID]map[string]bool{}
	if len(hashes) > 0 {
		var rows []struct {
			DocumentID  uuid.UUID `json:"document_id"`
			ContentHash *string   `json:"content_hash"`
		}
		err := client.Chunk.Query().
			Where(chunk.DocumentIDIn(docs...), chunk.ContentHashIn(hashes...)).
			Select(chunk.FieldDocumentID, chunk.FieldContentHash).
			Scan(ctx, &rows)
		if err != nil {
			return store.DomainError(err, "document")
		}
		for _, r := range rows {
			if r.ContentHash == nil {
				continue
			}
			if present[r.DocumentID] == nil {
				present[r.DocumentID] = map[string]bool{}
			}
			present[r.DocumentID][*r.ContentHash] = true
		}
	}
	for _, i := range idx {
		s := list[i].Source
		if s.ChunkHash == nil {
			continue
		}
		still := present[*s.DocumentID][*s.ChunkHash]
		list[i].StillContainsCitedText = &still
	}
	return nil
}
