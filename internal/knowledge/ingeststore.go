package knowledge

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
)

// chunkInsertBatch is the most chunk rows one INSERT carries: eight
// columns each keeps it well under the parameter limits of PostgreSQL
// (65535) and SQLite (32766).
const chunkInsertBatch = 500

// store writes the document in one transaction. It reports retry when the
// stored content changed since prep was (not) computed, so that Ingest
// embeds after all, and tells Options.Changes once it has committed a
// change of access: a document's chunks replaced, or its access list
// changed.
func (s *Service) store(ctx context.Context, kbID uuid.UUID, v validInput, sum string, prep *prepared) (doc *ent.Document, retry bool, err error) {
	changed, replaced := false, false
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		// Serialise writers of this knowledge base (PostgreSQL), so that two
		// ingests of the same source cannot both create it.
		kbq := tx.KnowledgeBase.Query().Where(knowledgebase.ID(kbID))
		kbq.Modify(lockRows)
		if _, err := kbq.Only(ctx); err != nil {
			if ent.IsNotFound(err) {
				return domain.NotFound("knowledge base")
			}
			return err
		}
		cur, err := findDocument(ctx, tx.Client(), kbID, v, true)
		if err != nil {
			return err
		}
		switch {
		case unchanged(cur, sum):
			changed = !aclOf(cur).equal(v.acl)
			doc, err = s.updateMetadata(ctx, tx, cur, v)
			return err
		case prep == nil:
			retry = true
			return errRetry
		case cur == nil:
			doc, err = createDocument(ctx, tx, kbID, v, sum)
		default:
			changed = true // the chunks its citations name are gone
			replaced = true
			doc, err = replaceDocument(ctx, tx, cur, v, sum)
		}
		if err != nil {
			return err
		}
		if err := createGrants(ctx, tx, doc.ID, v.acl); err != nil {
			return err
		}
		return createChunks(ctx, tx, doc, prep)
	})
	if retry {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	if changed {
		s.accessChanged(ctx)
	}
	if replaced {
		s.documentsChanged(ctx, doc.ID)
	}
	return detachDocument(doc), false, nil
}

// errRetry rolls back a store transaction that must be retried.
var errRetry = errors.New("knowledge: document changed concurrently")

// findDocument returns the document that v would replace in the knowledge
// base (same source URI, or same title among documents without one), with
// its grants, or nil. With lock it locks the row for the transaction.
func findDocument(ctx context.Context, client *ent.Client, kbID uuid.UUID, v validInput, lock bool) (*ent.Document, error) {
	q := client.Document.Query().Where(document.KnowledgeBaseID(kbID), document.SourceURI(v.sourceURI))
	if v.sourceURI == "" {
		q.Where(document.Title(v.title))
	}
	q.Order(ent.Asc(document.FieldCreatedAt), ent.Asc(document.FieldID)).Limit(1).WithGrants()
	if lock {
		q.Modify(lockRows)
	}
	docs, err := q.All(ctx)
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return docs[0], nil
}

// createDocument creates a READY document of version 1.
func createDocument(ctx context.Context, tx *ent.Tx, kbID uuid.UUID, v validInput, sum string) (*ent.Document, error) {
	return tx.Document.Create().
		SetKnowledgeBaseID(kbID).
		SetTitle(v.title).
		SetSourceURI(v.sourceURI).
		SetChecksum(sum).
		SetStatus(document.StatusREADY).
		SetVisibility(v.acl.visibility).
		Save(ctx)
}

// replaceDocument drops cur's chunks and grants and stores the new title,
// content checksum and visibility under the next version. It writes an
// audit event when the access list changes.
func replaceDocument(ctx context.Context, tx *ent.Tx, cur *ent.Document, v validInput, sum string) (*ent.Document, error) {
	if _, err := tx.Chunk.Delete().Where(chunk.DocumentID(cur.ID)).Exec(ctx); err != nil {
		return nil, err
	}
	if _, err := tx.DocumentGrant.Delete().Where(documentgrant.DocumentID(cur.ID)).Exec(ctx); err != nil {
		return nil, err
	}
	if old := aclOf(cur); !old.equal(v.acl) {
		if err := auditACLChange(ctx, tx, cur, old, v.acl, "re-ingested"); err != nil {
			return nil, err
		}
	}
	return tx.Document.UpdateOne(cur).
		SetTitle(v.title).
		SetChecksum(sum).
		SetStatus(document.StatusREADY).
		SetVisibility(v.acl.visibility).
		SetVersion(cur.Version + 1).
		Save(ctx)
}

// updateMetadata applies a new title or access list to a document whose
// content did not change, or returns it as it is.
func (s *Service) updateMetadata(ctx context.Context, tx *ent.Tx, cur *ent.Document, v validInput) (*ent.Document, error) {
	old := aclOf(cur)
	sameACL := old.equal(v.acl)
	if cur.Title == v.title && sameACL {
		return cur, nil
	}
	if !sameACL {
		if err := replaceGrants(ctx, tx, cur.ID, v.acl); err != nil {
			return nil, err
		}
		if err := auditACLChange(ctx, tx, cur, old, v.acl, "re-ingested"); err != nil {
			return nil, err
		}
	}
	return tx.Document.UpdateOne(cur).SetTitle(v.title).SetVisibility(v.acl.visibility).Save(ctx)
}

// createChunks bulk-inserts the prepared chunks of doc.
func createChunks(ctx context.Context, tx *ent.Tx, doc *ent.Document, prep *prepared) error {
	for start := 0; start < len(prep.chunks); start += chunkInsertBatch {
		end := min(start+chunkInsertBatch, len(prep.chunks))
		builders := make([]*ent.ChunkCreate, 0, end-start)
		for i := start; i < end; i++ {
			c := prep.chunks[i]
			builders = append(builders, tx.Chunk.Create().
				SetDocumentID(doc.ID).
				SetKnowledgeBaseID(doc.KnowledgeBaseID).
				SetOrdinal(c.Ordinal).
				SetContent(c.Content).
				SetTokenCount(c.Tokens).
				SetEmbedding(prep.vectors[i]))
		}
		if err := tx.Chunk.CreateBulk(builders...).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
