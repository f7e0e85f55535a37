package knowledge

import (
	"context"
	"strconv"
	"strings"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/internal/audit"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
)

// Audit event vocabulary.
const (
	// ActionACLChanged is recorded when a document's access list changes.
	ActionACLChanged = "document.acl_changed"
	// ActionDocumentDeleted is recorded when a document is deleted.
	ActionDocumentDeleted = "document.deleted"
	// TargetDocument is the target type of document audit events.
	TargetDocument = "document"
)

// SetACL replaces a document's visibility and grants in one transaction and
// records a "document.acl_changed" audit event. The next search already
// applies the new list, and open streams re-check their citations
// (Options.Changes). Setting the list it already has changes nothing
// and records nothing.
func (s *Service) SetACL(ctx context.Context, documentID uuid.UUID, acl ACL) (*ent.Document, error) {
	const action = "change access lists"
	if _, err := requireCurator(ctx, action); err != nil {
		return nil, err
	}
	next, err := acl.normalize()
	if err != nil {
		return nil, err
	}
	var doc *ent.Document
	changed := false
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		cur, err := lockDocument(ctx, tx, documentID)
		if err != nil {
			return err
		}
		old := aclOf(cur)
		if old.equal(next) {
			doc = cur
			return nil
		}
		changed = true
		if err := replaceGrants(ctx, tx, cur.ID, next); err != nil {
			return err
		}
		if err := auditACLChange(ctx, tx, cur, old, next, ""); err != nil {
			return err
		}
		doc, err = tx.Document.UpdateOne(cur).SetVisibility(next.visibility).Save(ctx)
		return err
	})
	if err != nil {
		return nil, store.DomainError(err, "document")
	}
	if changed {
		s.accessChanged(ctx)
	}
	return detachDocument(doc), nil
}

// DeleteDocument deletes a document for good: its chunks and grants go
// with it (foreign-key cascade), and answer sources that cited it keep
// their snapshot text while their links to the chunk and document are
// cleared. It records a "document.deleted" audit event with reason.
func (s *Service) DeleteDocument(ctx context.Context, documentID uuid.UUID, reason string) error {
	const action = "delete documents"
	_, err := requireCurator(ctx, action)
	if err != nil {
		return err
	}
	reason = strings.TrimSpace(reason)
	if len(reason) > MaxReasonBytes {
		return domain.Errorf(domain.CodeBadUserInput, "the reason is at most %d bytes, got %d", MaxReasonBytes, len(reason))
	}
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		cur, err := lockDocument(ctx, tx, documentID)
		if err != nil {
			return err
		}
		if err := tx.Document.DeleteOne(cur).Exec(ctx); err != nil {
			return err
		}
		return auditDocument(ctx, tx, ActionDocumentDeleted, cur, reason, map[string]string{
			"title":             cur.Title,
			"source_uri":        cur.SourceURI,
			"knowledge_base_id": cur.KnowledgeBaseID.String(),
			"version":           strconv.Itoa(cur.Version),
			"visibility":        string(cur.Visibility),
		})
	})
	if err == nil {
		s.accessChanged(ctx)
	}
	return store.DomainError(err, "document")
}

// lockDocument reads a document the viewer may see, with its grants,
// locking it for the transaction. A hidden or missing one is NOT_FOUND.
func lockDocument(ctx context.Context, tx *ent.Tx, id uuid.UUID) (*ent.Document, error) {
	q := tx.Document.Query().Where(document.ID(id)).WithGrants()
	q.Modify(lockRows)
	doc, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, domain.NotFound("document")
	}
	return doc, err
}

// lockRows makes a query lock the rows it reads until the transaction ends
// (FOR NO KEY UPDATE, which does not block foreign-key checks) on
// PostgreSQL. SQLite needs no row locks: its write transactions hold the
// database's write lock from BEGIN (store.SQLiteDSN uses _txlock=immediate).
func lockRows(s *sql.Selector) {
	if s.Dialect() == dialect.Postgres {
		s.For(sql.LockNoKeyUpdate)
	}
}

// aclOf returns the stored access list of doc, whose grants are loaded.
func aclOf(doc *ent.Document) normalizedACL {
	a := ACL{Visibility: string(doc.Visibility)}
	for _, g := range doc.Edges.Grants {
		if g.PrincipalKind == documentgrant.PrincipalKindGROUP {
			a.Groups = append(a.Groups, g.Principal)
		} else {
			a.Users = append(a.Users, g.Principal)
		}
	}
	n, err := a.normalize()
	if err != nil {
		// Stored lists were validated on the way in; one that no longer
		// validates (say, a TENANT document with stale grants) still
		// compares by its raw parts.
		n.visibility = doc.Visibility
	}
	return n
}

// replaceGrants deletes the document's grants and creates acl's.
func replaceGrants(ctx context.Context, tx *ent.Tx, documentID uuid.UUID, acl normalizedACL) error {
	if _, err := tx.DocumentGrant.Delete().Where(documentgrant.DocumentID(documentID)).Exec(ctx); err != nil {
		return err
	}
	return createGrants(ctx, tx, documentID, acl)
}

// createGrants creates one grant row per principal of acl.
func createGrants(ctx context.Context, tx *ent.Tx, documentID uuid.UUID, acl normalizedACL) error {
	if len(acl.grants) == 0 {
		return nil
	}
	builders := make([]*ent.DocumentGrantCreate, len(acl.grants))
	for i, g := range acl.grants {
		builders[i] = tx.DocumentGrant.Create().
			SetDocumentID(documentID).
			SetPrincipalKind(g.kind).
			SetPrincipal(g.principal)
	}
	return tx.DocumentGrant.CreateBulk(builders...).Exec(ctx)
}

// auditACLChange records that doc's access list went from old to next.
func auditACLChange(ctx context.Context, tx *ent.Tx, doc *ent.Document, old, next normalizedACL, reason string) error {
	return auditDocument(ctx, tx, ActionACLChanged, doc, reason, map[string]string{
		"title":          doc.Title,
		"old_visibility": string(old.visibility),
		"new_visibility": string(next.visibility),
		"old_grants":     old.describe(),
		"new_grants":     next.describe(),
	})
}

// auditDocument writes, in tx, the audit event of action on doc.
func auditDocument(ctx context.Context, tx *ent.Tx, action string, doc *ent.Document, reason string, meta map[string]string) error {
	return audit.Write(ctx, tx.AuditEvent, audit.Event{Action: action, TargetType: TargetDocument, TargetID: doc.ID.String(), Reason: reason, Metadata: meta})
}
