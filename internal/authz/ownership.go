package authz

import (
	"context"

	"entgo.io/ent"
	"entgo.io/ent/entql"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/viewer"
)

// userFilter is implemented by the Conversation filter (its owner column is
// user_id) and by Feedback (the rater).
type userFilter interface {
	WhereUserID(entql.StringP)
}

// ownerFilter is implemented by the filters of every row that lives under a
// conversation (messages, attempts, sources, feedback): owner_id is the
// conversation owner, denormalised so that the filter needs no join.
type ownerFilter interface {
	WhereOwnerID(entql.StringP)
}

// FilterConversationOwner restricts conversations to the viewer's own. Admins
// are allowed earlier in the policy and never reach it.
func FilterConversationOwner() privacy.QueryMutationRule {
	return privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
		v := viewer.FromContext(ctx)
		uf, ok := f.(userFilter)
		if v == nil || !ok {
			return privacy.Denyf("owner filter unavailable")
		}
		uf.WhereUserID(entql.StringEQ(v.UserID))
		return privacy.Allow
	})
}

// FilterOwner restricts rows beneath a conversation to conversations the
// viewer owns.
func FilterOwner() privacy.QueryMutationRule {
	return privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
		v := viewer.FromContext(ctx)
		of, ok := f.(ownerFilter)
		if v == nil || !ok {
			return privacy.Denyf("owner filter unavailable")
		}
		of.WhereOwnerID(entql.StringEQ(v.UserID))
		return privacy.Allow
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
	return privacy.MutationRuleFunc(func(ctx context.Context, m ent.Mutation) error {
		if !m.Op().Is(ent.OpCreate) {
			return privacy.Skip
		}
		v := viewer.FromContext(ctx)
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
	return privacy.MutationRuleFunc(func(ctx context.Context, m ent.Mutation) error {
		if !m.Op().Is(ent.OpCreate) {
			return privacy.Skip
		}
		v := viewer.FromContext(ctx)
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
