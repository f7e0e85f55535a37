package authz

import (
	"context"

	"entgo.io/ent"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/viewer"
)

// onCreate is the mutation rule that skips every mutation but a create and
// decides a create with decide, given the viewer of its context (nil when
// there is none).
func onCreate(decide func(v *viewer.Viewer, m ent.Mutation) error) privacy.MutationRule {
	return privacy.MutationRuleFunc(func(ctx context.Context, m ent.Mutation) error {
		if !m.Op().Is(ent.OpCreate) {
			return privacy.Skip
		}
		return decide(viewer.FromContext(ctx), m)
	})
}

// tenantMutation is implemented by mutations of tenant-scoped entities.
type tenantMutation interface {
	TenantID() (string, bool)
	SetTenantID(string)
}

// TenantFromViewerOnCreate fills tenant_id on create from the viewer, so
// callers never pass it; DenyCreateOutsideViewer then refuses a mismatched
// explicit value.
func TenantFromViewerOnCreate() privacy.MutationRule {
	return onCreate(func(v *viewer.Viewer, m ent.Mutation) error {
		tm, ok := m.(tenantMutation)
		if v == nil || !ok {
			return privacy.Denyf("tenant unavailable")
		}
		if _, set := tm.TenantID(); !set {
			tm.SetTenantID(v.TenantID)
		}
		return privacy.Skip
	})
}

// ownerMutation is implemented by mutations of rows beneath a conversation.
type ownerMutation interface {
	OwnerID() (string, bool)
}

// userMutation is implemented by Conversation and Feedback mutations.
type userMutation interface {
	UserID() (string, bool)
}

// DenyCreateOutsideViewer denies a create whose tenant_id, owner_id or
// user_id names anyone but the viewer. Admins may create rows in their
// tenant only; nobody creates rows in someone else's conversation.
func DenyCreateOutsideViewer() privacy.MutationRule {
	return onCreate(func(v *viewer.Viewer, m ent.Mutation) error {
		if v == nil {
			return privacy.Denyf("viewer is missing")
		}
		if tm, ok := m.(tenantMutation); ok {
			if id, set := tm.TenantID(); !set || id != v.TenantID {
				return privacy.Denyf("tenant mismatch")
			}
		}
		if om, ok := m.(ownerMutation); ok {
			if id, set := om.OwnerID(); !set || id != v.UserID {
				return privacy.Denyf("owner mismatch")
			}
		}
		if um, ok := m.(userMutation); ok {
			if id, set := um.UserID(); !set || id != v.UserID {
				return privacy.Denyf("user mismatch")
			}
		}
		return privacy.Skip
	})
}

// DenyUnlessCreate denies updates and deletes (for append-only rows such as
// audit events) and skips creates.
func DenyUnlessCreate() privacy.MutationRule {
	return privacy.MutationRuleFunc(func(_ context.Context, m ent.Mutation) error {
		if m.Op().Is(ent.OpCreate) {
			return privacy.Skip
		}
		return privacy.Denyf("append-only")
	})
}

// DenyEmptyUpdate denies an update that changes nothing. Ent answers an
// empty UpdateOne by reading the row by id alone, without the privacy
// predicates, so an empty update of another tenant's row would return that
// row. Refusing every empty update closes the hole and answers a hidden id
// exactly like a missing one.
func DenyEmptyUpdate() privacy.MutationRule {
	return privacy.MutationRuleFunc(func(_ context.Context, m ent.Mutation) error {
		if !m.Op().Is(ent.OpUpdate | ent.OpUpdateOne) {
			return privacy.Skip
		}
		if len(m.Fields())+len(m.AddedFields())+len(m.ClearedFields())+len(m.AddedEdges())+len(m.ClearedEdges())+len(m.RemovedEdges()) == 0 {
			return privacy.Denyf("empty update")
		}
		return privacy.Skip
	})
}
