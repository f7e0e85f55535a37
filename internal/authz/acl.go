package authz

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/viewer"
)

// DocumentReadableBy returns the predicate "v may read this document now":
// the document is visible to the whole tenant, or a grant names v's user id
// or one of v's groups. Tenant filtering is applied separately.
func DocumentReadableBy(v *viewer.Viewer) predicate.Document {
	principal := []predicate.DocumentGrant{
		documentgrant.And(
			documentgrant.PrincipalKindEQ(documentgrant.PrincipalKindUSER),
			documentgrant.Principal(v.UserID),
		),
	}
	if len(v.Groups) > 0 {
		principal = append(principal, documentgrant.And(
			documentgrant.PrincipalKindEQ(documentgrant.PrincipalKindGROUP),
			documentgrant.PrincipalIn(v.Groups...),
		))
	}
	return document.Or(
		document.VisibilityEQ(document.VisibilityTENANT),
		document.HasGrantsWith(documentgrant.Or(principal...)),
	)
}

// sqlFilter is implemented by every generated entql filter: it accepts raw
// storage predicates.
type sqlFilter interface {
	WhereP(...func(*sql.Selector))
}

// FilterReadableDocuments restricts documents to those the viewer may read
// now. Curators (admins, agents) are allowed earlier and see every document
// of their tenant.
func FilterReadableDocuments() privacy.QueryMutationRule {
	return privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
		v := viewer.FromContext(ctx)
		sf, ok := f.(sqlFilter)
		if v == nil || !ok {
			return privacy.Denyf("document filter unavailable")
		}
		sf.WhereP(DocumentReadableBy(v))
		return privacy.Allow
	})
}

// FilterReadableChunks restricts chunks to those of documents the viewer may
// read now, so that retrieval, citations and eager loads all honour the ACL.
func FilterReadableChunks() privacy.QueryMutationRule {
	return privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
		v := viewer.FromContext(ctx)
		sf, ok := f.(sqlFilter)
		if v == nil || !ok {
			return privacy.Denyf("chunk filter unavailable")
		}
		sf.WhereP(chunk.HasDocumentWith(DocumentReadableBy(v)))
		return privacy.Allow
	})
}

// FilterGrantsOfReadableDocuments restricts document grants to those on
// documents the viewer may read (members learn nothing about others' ACLs).
func FilterGrantsOfReadableDocuments() privacy.QueryMutationRule {
	return privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
		v := viewer.FromContext(ctx)
		sf, ok := f.(sqlFilter)
		if v == nil || !ok {
			return privacy.Denyf("grant filter unavailable")
		}
		sf.WhereP(documentgrant.And(
			documentgrant.HasDocumentWith(DocumentReadableBy(v)),
			documentgrant.Principal(v.UserID),
		))
		return privacy.Allow
	})
}

// FilterNothing makes the query match no rows, so that an entity the viewer
// may not read looks exactly like an empty table (never "forbidden").
func FilterNothing() privacy.QueryMutationRule {
	return privacy.FilterFunc(func(_ context.Context, f privacy.Filter) error {
		sf, ok := f.(sqlFilter)
		if !ok {
			return privacy.Denyf("filter unavailable")
		}
		sf.WhereP(func(s *sql.Selector) { s.Where(sql.False()) })
		return privacy.Allow
	})
}
