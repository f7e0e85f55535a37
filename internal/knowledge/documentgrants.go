package knowledge

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/internal/store"
)

// DocumentWithGrants returns a document with its grants, ordered by kind
// and principal, for a curator's view of who may read it (FORBIDDEN to
// members); a document the curator cannot see is NOT_FOUND "document".
func DocumentWithGrants(ctx context.Context, client *ent.Client, id uuid.UUID) (*ent.Document, error) {
	if _, err := requireCurator(ctx, "read a document's access"); err != nil {
		return nil, err
	}
	d, err := client.Document.Query().Where(document.ID(id)).
		WithGrants(func(q *ent.DocumentGrantQuery) {
			q.Order(ent.Asc(documentgrant.FieldPrincipalKind, documentgrant.FieldPrincipal))
		}).
		Only(ctx)
	if err != nil {
		return nil, store.DomainError(err, "document")
	}
	return d, nil
}
