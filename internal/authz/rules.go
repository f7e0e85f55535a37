// Package authz holds the Ent privacy rules that enforce tenant isolation,
// conversation ownership and document ACLs at the storage layer. Schemas in
// ent/schema attach them; resolvers and the engine never filter by hand.
package authz

import (
	"context"

	"entgo.io/ent"
	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/entql"

	"github.com/ragchat/ragchat/ent/intercept"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/viewer"
)

// DenyIfNoViewer denies any operation whose context carries neither a viewer
// nor a system job.
func DenyIfNoViewer() privacy.QueryMutationRule {
	return privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if _, ok := viewer.SystemJob(ctx); ok {
			return privacy.Skip
		}
		v := viewer.FromContext(ctx)
		if v == nil || v.TenantID == "" || v.UserID == "" {
			return privacy.Denyf("viewer is missing")
		}
		return privacy.Skip
	})
}

// AllowIfSystemJob allows everything to a background job running under
// viewer.SystemJobContext.
func AllowIfSystemJob() privacy.QueryMutationRule {
	return privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if _, ok := viewer.SystemJob(ctx); ok {
			return privacy.Allow
		}
		return privacy.Skip
	})
}

// AllowIfJob allows everything to the one system job job, and skips for
// every other context (a later rule decides).
func AllowIfJob(job viewer.Job) privacy.QueryMutationRule {
	return privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if j, ok := viewer.SystemJob(ctx); ok && j == job {
			return privacy.Allow
		}
		return privacy.Skip
	})
}

// tenantFilter is implemented by the generated filters of every entity with
// a tenant_id column.
type tenantFilter interface {
	WhereTenantID(entql.StringP)
}

// FilterTenant restricts queries, updates and deletes to the viewer's
// tenant. It skips (so later rules decide) after adding the predicate.
func FilterTenant() privacy.QueryMutationRule {
	return viewerTenantFilter(tenantFilter.WhereTenantID, privacy.Skip)
}

// idFilter is implemented by the filter of the Tenant entity, whose id is
// the tenant key.
type idFilter interface {
	WhereID(entql.StringP)
}

// FilterOwnTenantRow restricts Tenant rows to the viewer's own tenant.
func FilterOwnTenantRow() privacy.QueryMutationRule {
	return viewerTenantFilter(idFilter.WhereID, privacy.Allow)
}

// viewerTenantFilter is a rule that adds where(the viewer's tenant) to
// filters of type F and then decides: decision. Without a viewer, or on
// another filter type, it denies.
func viewerTenantFilter[F any](where func(F, entql.StringP), decision error) privacy.QueryMutationRule {
	return privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
		v := viewer.FromContext(ctx)
		if v == nil {
			return privacy.Denyf("viewer is missing")
		}
		tf, ok := f.(F)
		if !ok {
			return privacy.Denyf("unexpected filter type %T", f)
		}
		where(tf, entql.StringEQ(v.TenantID))
		return decision
	})
}

// wherePer is implemented by every generated query (through
// intercept.NewQuery) and mutation: it accepts raw storage predicates.
type wherePer interface {
	WhereP(...func(*sql.Selector))
}

// scopeRule applies a table's scope to queries and mutations.
type scopeRule struct {
	table    string
	sc       scope
	declared bool
}

// FilterScope narrows queries, updates and deletes of table to the rows the
// viewer may see beyond the tenant boundary (owner, ACL, admin-only), as
// declared in scopes, and leaves out rows of DELETED conversations (see
// IncludeDeleted). It skips, so later rules can still deny.
func FilterScope(table string) privacy.QueryMutationRule {
	sc, declared := scopes[table]
	return scopeRule{table: table, sc: sc, declared: declared}
}

// EvalQuery implements privacy.QueryRule.
func (r scopeRule) EvalQuery(ctx context.Context, q ent.Query) error {
	iq, err := intercept.NewQuery(q)
	if err != nil {
		return privacy.Denyf("scope %s: %v", r.table, err)
	}
	return r.apply(ctx, iq, true)
}

// EvalMutation implements privacy.MutationRule.
func (r scopeRule) EvalMutation(ctx context.Context, m ent.Mutation) error {
	w, ok := m.(wherePer)
	if !ok {
		return privacy.Denyf("scope %s: unexpected mutation %T", r.table, m)
	}
	return r.apply(ctx, w, false)
}

// apply adds the scope; reads (read) also reach what a support agent's
// active grants open (support.go), writes never do.
func (r scopeRule) apply(ctx context.Context, w wherePer, read bool) error {
	v := viewer.FromContext(ctx)
	if v == nil || !r.declared {
		return privacy.Denyf("no visibility scope for %s", r.table)
	}
	p := r.sc(v)
	if read {
		p = readScope(ctx, v, r.table, r.sc)
	}
	if p != nil {
		w.WhereP(p)
	}
	if p := notDeleted(ctx, r.table); p != nil {
		w.WhereP(p)
	}
	return privacy.Skip
}

// AllowIfAdmin allows the operation to tenant administrators. Place it after
// FilterTenant so that the tenant predicate still applies.
func AllowIfAdmin() privacy.QueryMutationRule {
	return privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if viewer.FromContext(ctx).IsAdmin() {
			return privacy.Allow
		}
		return privacy.Skip
	})
}

// AllowIfCurator allows the operation to admins and agents.
func AllowIfCurator() privacy.QueryMutationRule {
	return privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if viewer.FromContext(ctx).CanCurateKnowledge() {
			return privacy.Allow
		}
		return privacy.Skip
	})
}

// AlwaysAllow ends a policy with an allow decision.
func AlwaysAllow() privacy.QueryMutationRule {
	return privacy.ContextQueryMutationRule(func(context.Context) error { return privacy.Allow })
}

// AlwaysDeny ends a policy with a deny decision.
func AlwaysDeny() privacy.QueryMutationRule {
	return privacy.ContextQueryMutationRule(func(context.Context) error {
		return privacy.Denyf("operation not permitted")
	})
}

// DenyIfNotAdmin denies the operation to anyone but a tenant administrator.
func DenyIfNotAdmin() privacy.QueryMutationRule {
	return privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if viewer.FromContext(ctx).IsAdmin() {
			return privacy.Skip
		}
		return privacy.Denyf("admin role required")
	})
}

// DenyIfNotCurator denies the operation to anyone but admins and agents.
func DenyIfNotCurator() privacy.QueryMutationRule {
	return privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if viewer.FromContext(ctx).CanCurateKnowledge() {
			return privacy.Skip
		}
		return privacy.Denyf("admin or agent role required")
	})
}
