package authz

import (
	"entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/internal/viewer"
)

// DocumentReadableBy returns the predicate "v may read this document now":
// the document is visible to the whole tenant, or a grant of v's tenant
// names v's user id or one of v's groups. Tenant filtering of the document
// is applied separately.
//
// The grant test is written as its own EXISTS rather than with
// document.HasGrantsWith: the generated edge predicate appends the grants'
// visibility (edgefilter, grantsNamingViewer), which is this same
// principal test again, so the statement would state it twice for
// PostgreSQL to plan (docs/ENGINE.md, "Privacy SQL, composed once"). The
// EXISTS below is exactly what that visibility is: the grants' tenant and
// the principal test.
func DocumentReadableBy(v *viewer.Viewer) predicate.Document {
	return document.Or(
		document.VisibilityEQ(document.VisibilityTENANT),
		grantNamesViewer(v),
	)
}

// grantNamesViewer returns the predicate "a grant of v's tenant on this
// document names v".
func grantNamesViewer(v *viewer.Viewer) predicate.Document {
	return func(s *sql.Selector) {
		g := sql.Table(documentgrant.Table)
		grants := sql.Dialect(s.Dialect()).Select(g.C(documentgrant.FieldDocumentID)).From(g)
		grants.Where(sql.And(
			sql.ColumnsEQ(s.C(document.FieldID), g.C(documentgrant.FieldDocumentID)),
			sql.EQ(g.C(documentgrant.FieldTenantID), v.TenantID),
		))
		documentgrant.Or(principalIsViewer(v)...)(grants)
		s.Where(sql.Exists(grants))
	}
}

// principalIsViewer returns the grant predicates that name v: its user id,
// or one of its groups.
func principalIsViewer(v *viewer.Viewer) []predicate.DocumentGrant {
	out := []predicate.DocumentGrant{
		documentgrant.And(
			documentgrant.PrincipalKindEQ(documentgrant.PrincipalKindUSER),
			documentgrant.Principal(v.UserID),
		),
	}
	if len(v.Groups) > 0 {
		out = append(out, documentgrant.And(
			documentgrant.PrincipalKindEQ(documentgrant.PrincipalKindGROUP),
			documentgrant.PrincipalIn(v.Groups...),
		))
	}
	return out
}
