package resolvers

import (
	"context"
	"sort"
	"time"

	"entgo.io/contrib/entgql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/adminreport"
	"github.com/ragchat/ragchat/internal/support"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Support is delegated support access (*support.Service; docs/API.md,
// "Delegated support access"), which decides who may request, decide and
// see grants.
type Support interface {
	Request(ctx context.Context, in support.RequestInput) (*ent.SupportGrant, error)
	Approve(ctx context.Context, id uuid.UUID) (*ent.SupportGrant, error)
	Deny(ctx context.Context, id uuid.UUID, reason string) (*ent.SupportGrant, error)
	Revoke(ctx context.Context, id uuid.UUID) (*ent.SupportGrant, error)
	ConversationGrants(ctx context.Context, conversationID uuid.UUID) ([]*ent.SupportGrant, error)
	State(g *ent.SupportGrant) string
}

var _ Support = (*support.Service)(nil)

// requestSupportAccess parses the optional duration and files the request.
func (r *Resolver) requestSupportAccess(ctx context.Context, conversationID uuid.UUID, reason string, duration *string) (*ent.SupportGrant, error) {
	in := support.RequestInput{ConversationID: conversationID, Reason: reason}
	if duration != nil {
		d, err := time.ParseDuration(*duration)
		if err != nil {
			return nil, badInput("duration", "duration %q is not a duration such as \"2h\" or \"90m\"", *duration)
		}
		in.Duration = &d
	}
	g, err := r.support.Request(ctx, in)
	return g, notFound(err, "conversation")
}

// approveSupportAccess approves a pending request.
func (r *Resolver) approveSupportAccess(ctx context.Context, id uuid.UUID) (*ent.SupportGrant, error) {
	g, err := r.support.Approve(ctx, id)
	return g, notFound(err, "support grant")
}

// denySupportAccess denies a pending request.
func (r *Resolver) denySupportAccess(ctx context.Context, id uuid.UUID, reason *string) (*ent.SupportGrant, error) {
	why := orEmpty(reason)
	g, err := r.support.Deny(ctx, id, why)
	return g, notFound(err, "support grant")
}

// revokeSupportAccess ends a grant.
func (r *Resolver) revokeSupportAccess(ctx context.Context, id uuid.UUID) (*ent.SupportGrant, error) {
	g, err := r.support.Revoke(ctx, id)
	return g, notFound(err, "support grant")
}

// supportGrants pages the grants the viewer may see (Ent privacy decides
// which), newest first by default.
func (r *Resolver) supportGrants(ctx context.Context, after *Cursor, first *int, before *Cursor, last *int, orderBy *ent.SupportGrantOrder, where *ent.SupportGrantWhereInput) (*ent.SupportGrantConnection, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	if orderBy == nil {
		orderBy = &ent.SupportGrantOrder{Direction: entgql.OrderDirectionDesc, Field: ent.SupportGrantOrderFieldCreatedAt}
	}
	return r.client.SupportGrant.Query().Paginate(ctx, after, first, before, last,
		ent.WithSupportGrantOrder(orderBy), ent.WithSupportGrantFilter(where.Filter))
}

// auditEvents pages the tenant's audit events for admins, newest first by
// default.
func (r *Resolver) auditEvents(ctx context.Context, after *Cursor, first *int, before *Cursor, last *int, orderBy *ent.AuditEventOrder, where *ent.AuditEventWhereInput) (*ent.AuditEventConnection, error) {
	q, err := adminreport.AuditEvents(ctx, r.client)
	if err != nil {
		return nil, err
	}
	if orderBy == nil {
		orderBy = &ent.AuditEventOrder{Direction: entgql.OrderDirectionDesc, Field: ent.AuditEventOrderFieldAt}
	}
	return q.Paginate(ctx, after, first, before, last,
		ent.WithAuditEventOrder(orderBy), ent.WithAuditEventFilter(where.Filter))
}

// grantState maps a grant's effective state.
func (r *Resolver) grantState(g *ent.SupportGrant) model.SupportGrantState {
	return model.SupportGrantState(r.support.State(g))
}

// auditMetadata lists an event's metadata sorted by key.
func auditMetadata(e *ent.AuditEvent) []*model.AuditMetadataEntry {
	out := make([]*model.AuditMetadataEntry, 0, len(e.Metadata))
	for k, v := range e.Metadata {
		out = append(out, &model.AuditMetadataEntry{Key: k, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
