package knowledge

import (
	"slices"
	"strings"

	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/internal/domain"
)

// Visibility values of ACL.
const (
	// VisibilityTenant lets every viewer of the tenant read the document.
	VisibilityTenant = string(document.VisibilityTENANT)
	// VisibilityRestricted lets only the named groups and users read it.
	VisibilityRestricted = string(document.VisibilityRESTRICTED)
)

// Limits of an ACL.
const (
	// MaxPrincipalBytes is the longest group or user id.
	MaxPrincipalBytes = 128
	// MaxPrincipals is the most groups plus users one document may name.
	MaxPrincipals = 256
)

// ACL is a document's access list. A TENANT document is readable by every
// viewer of the tenant and names no principals; a RESTRICTED one is
// readable only by members of Groups and by Users (curators always see
// every document of their tenant).
type ACL struct {
	// Visibility is "TENANT" or "RESTRICTED"; empty means "TENANT".
	Visibility string
	// Groups are group names (JWT groups claim) that may read the document.
	Groups []string
	// Users are user ids (JWT subjects) that may read the document.
	Users []string
}

// grant is one principal of an ACL.
type grant struct {
	kind      documentgrant.PrincipalKind
	principal string
}

// String renders g as "group:ops" or "user:alice".
func (g grant) String() string {
	return strings.ToLower(string(g.kind)) + ":" + g.principal
}

// normalizedACL is a validated ACL: principals trimmed, de-duplicated and
// sorted.
type normalizedACL struct {
	visibility document.Visibility
	grants     []grant
}

// normalize validates a and returns its canonical form, or a BAD_USER_INPUT
// error.
func (a ACL) normalize() (normalizedACL, error) {
	var n normalizedACL
	switch strings.ToUpper(strings.TrimSpace(a.Visibility)) {
	case "", VisibilityTenant:
		n.visibility = document.VisibilityTENANT
	case VisibilityRestricted:
		n.visibility = document.VisibilityRESTRICTED
	default:
		return n, domain.Errorf(domain.CodeBadUserInput, "visibility must be TENANT or RESTRICTED, got %q", a.Visibility)
	}
	add := func(kind documentgrant.PrincipalKind, names []string) error {
		for _, name := range names {
			p := strings.TrimSpace(name)
			if err := validPrincipal(p); err != nil {
				return err
			}
			n.grants = append(n.grants, grant{kind: kind, principal: p})
		}
		return nil
	}
	if err := add(documentgrant.PrincipalKindGROUP, a.Groups); err != nil {
		return n, err
	}
	if err := add(documentgrant.PrincipalKindUSER, a.Users); err != nil {
		return n, err
	}
	slices.SortFunc(n.grants, func(x, y grant) int {
		if c := strings.Compare(string(x.kind), string(y.kind)); c != 0 {
			return c
		}
		return strings.Compare(x.principal, y.principal)
	})
	n.grants = slices.Compact(n.grants)
	switch {
	case len(n.grants) > MaxPrincipals:
		return n, domain.Errorf(domain.CodeBadUserInput, "an access list names at most %d groups and users, got %d", MaxPrincipals, len(n.grants))
	case n.visibility == document.VisibilityRESTRICTED && len(n.grants) == 0:
		return n, domain.Errorf(domain.CodeBadUserInput, "a RESTRICTED document needs at least one group or user")
	case n.visibility == document.VisibilityTENANT && len(n.grants) > 0:
		return n, domain.Errorf(domain.CodeBadUserInput, "a TENANT document is readable by everyone in the tenant: name groups or users only with RESTRICTED visibility")
	}
	return n, nil
}

// validPrincipal checks one trimmed group or user id.
func validPrincipal(p string) error {
	switch {
	case p == "":
		return domain.Errorf(domain.CodeBadUserInput, "group and user ids must not be empty")
	case len(p) > MaxPrincipalBytes:
		return domain.Errorf(domain.CodeBadUserInput, "group and user ids are at most %d bytes, got %d", MaxPrincipalBytes, len(p))
	}
	return validText("a group or user id", p)
}

// describe renders the grants for audit metadata: "group:ops,user:bob".
func (n normalizedACL) describe() string {
	parts := make([]string, len(n.grants))
	for i, g := range n.grants {
		parts[i] = g.String()
	}
	return strings.Join(parts, ",")
}

// equal reports whether n and m grant the same access.
func (n normalizedACL) equal(m normalizedACL) bool {
	return n.visibility == m.visibility && slices.Equal(n.grants, m.grants)
}
