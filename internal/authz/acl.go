package authz

import (
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/internal/viewer"
)

// DocumentReadableBy returns the predicate "v may read this document now":
// the document is visible to the whole tenant, or a grant names v's user id
// or one of v's groups. Tenant filtering is applied separately.
func DocumentReadableBy(v *viewer.Viewer) predicate.Document {
	return document.Or(
		document.VisibilityEQ(document.VisibilityTENANT),
		document.HasGrantsWith(documentgrant.Or(principalIsViewer(v)...)),
	)
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
