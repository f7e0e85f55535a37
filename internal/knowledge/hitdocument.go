package knowledge

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/edgefilter"
	"github.com/ragchat/ragchat/internal/sqlvalue"
)

// Aliases of the document columns that joinHitDocuments selects.
const (
	hitDocuments      = "hit_documents"
	colHitDocID       = "hit_document_id"
	colHitDocTitle    = "hit_document_title"
	colHitDocVersion  = "hit_document_version"
	hitDocumentsQuery = "hit documents"
)

// joinHitDocuments joins each chunk's document into the chunk query, so
// that a search costs one statement, not a second one to load the
// documents (docs/ENGINE.md, "Statements per ask"). The joined documents
// are READY and limited to those the viewer in ctx may read, by the same
// visibility (internal/authz, through edgefilter) that Ent privacy applies
// to a document query: tenant and ACL. The chunk query's own privacy
// filter already demands a readable document; the join states it again
// rather than trusting it. ctx is passed because Ent runs modifiers before
// it sets the query's context on the selector.
func joinHitDocuments(ctx context.Context) func(*sql.Selector) {
	return func(s *sql.Selector) {
		docs := sql.Dialect(s.Dialect()).
			Select(document.FieldID, document.FieldTitle, document.FieldVersion).
			From(sql.Table(document.Table)).
			WithContext(ctx)
		docs.Where(sql.EQ(docs.C(document.FieldStatus), document.StatusREADY.String()))
		edgefilter.Restrict(document.Table)(docs)
		t := docs.As(hitDocuments)
		s.Join(t).On(s.C(chunk.FieldDocumentID), t.C(document.FieldID))
		s.AppendSelectAs(t.C(document.FieldID), colHitDocID)
		s.AppendSelectAs(t.C(document.FieldTitle), colHitDocTitle)
		s.AppendSelectAs(t.C(document.FieldVersion), colHitDocVersion)
	}
}

// hitDocumentOf returns the document that joinHitDocuments read for c.
func hitDocumentOf(c *ent.Chunk) (*chat.HitDocument, error) {
	id, err := c.Value(colHitDocID)
	if err != nil {
		return nil, err
	}
	title, err := c.Value(colHitDocTitle)
	if err != nil {
		return nil, err
	}
	version, err := c.Value(colHitDocVersion)
	if err != nil {
		return nil, err
	}
	d := &chat.HitDocument{}
	if d.ID, err = sqlvalue.UUID(id); err != nil {
		return nil, fmt.Errorf("knowledge: %s id: %w", hitDocumentsQuery, err)
	}
	if d.ID != c.DocumentID {
		return nil, fmt.Errorf("knowledge: chunk %s joined document %s, not its own %s", c.ID, d.ID, c.DocumentID)
	}
	d.Title = sqlvalue.Text(title)
	if d.Version, err = sqlvalue.Int(version); err != nil {
		return nil, fmt.Errorf("knowledge: %s version: %w", hitDocumentsQuery, err)
	}
	return d, nil
}
