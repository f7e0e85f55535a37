// Package viewer carries the identity of whoever is acting, through a
// context.Context, to the storage layer. Ent privacy rules read it to filter
// every query and mutation to the viewer's tenant and, for members, to their
// own conversations.
//
// A viewer is built only from verified credentials (a JWT, a CLI flag for an
// operator) or, for background jobs, through SystemJobContext. No request
// field can name a tenant or a user. Share links' reads act as a share
// scope instead (share.go).
package viewer

import (
	"context"
	"slices"
	"time"
)

// Role is a coarse permission level inside one tenant.
type Role string

// The roles a viewer can hold.
const (
	// RoleMember is an end user: they see their own conversations only.
	RoleMember Role = "member"
	// RoleAgent curates knowledge (ingest, ACLs) but, like a member, sees
	// only their own conversations.
	RoleAgent Role = "agent"
	// RoleAdmin sees the whole tenant, never another tenant.
	RoleAdmin Role = "admin"
	// RoleSupport is a support agent: like a member they see their own
	// conversations, plus, read-only, the conversations an approved and
	// unexpired support grant names them for (internal/support/README.md).
	RoleSupport Role = "support"
)

// Valid reports whether r is one of the known roles.
func (r Role) Valid() bool {
	switch r {
	case RoleMember, RoleAgent, RoleAdmin, RoleSupport:
		return true
	}
	return false
}

// Viewer is an authenticated user of one tenant.
type Viewer struct {
	TenantID string
	UserID   string
	Roles    []Role
	Groups   []string
	// ExpiresAt is when the credentials the viewer was built from expire
	// (zero when they do not). Long-lived connections end then.
	ExpiresAt time.Time
	// IssuedAt is when those credentials were issued (the token's `iat`;
	// zero when unknown). A later token of the same user with other roles
	// or groups supersedes the streams opened with this one
	// (internal/authwatch).
	IssuedAt time.Time
}

// Has reports whether the viewer holds role r.
func (v *Viewer) Has(r Role) bool { return v != nil && slices.Contains(v.Roles, r) }

// IsAdmin reports whether the viewer is a tenant administrator.
func (v *Viewer) IsAdmin() bool { return v.Has(RoleAdmin) }

// IsSupport reports whether the viewer is a support agent, who may request
// delegated access to other users' conversations.
func (v *Viewer) IsSupport() bool { return v.Has(RoleSupport) }

// CanCurateKnowledge reports whether the viewer may administer knowledge
// bases and documents (admins and agents).
func (v *Viewer) CanCurateKnowledge() bool { return v.Has(RoleAdmin) || v.Has(RoleAgent) }

type viewerKey struct{}

// NewContext returns a copy of parent that carries v. Any system job or
// share scope that parent ran as is dropped: a viewer context is never a
// system context.
func NewContext(parent context.Context, v *Viewer) context.Context {
	ctx := context.WithValue(parent, systemKey{}, Job{})
	ctx = context.WithValue(ctx, shareKey{}, nil)
	return context.WithValue(ctx, viewerKey{}, v)
}

// FromContext returns the viewer in ctx, or nil when there is none (or the
// context belongs to a system job).
func FromContext(ctx context.Context) *Viewer {
	v, _ := ctx.Value(viewerKey{}).(*Viewer)
	return v
}
