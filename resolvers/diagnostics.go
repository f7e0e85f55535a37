package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/adminreport"
	"github.com/ragchat/ragchat/internal/knowledge"
)

// The role-dependent views live on entry points of their own, never on the
// shared entity types: a member's query that selects every field of every
// type it can reach must not get a FORBIDDEN error, which Apollo's default
// error policy turns into no data at all (docs/API.md, "Admin
// diagnostics").

// attemptDiagnostics is an admin's view of one attempt of the tenant: what
// its prompt was built from, its timings and its lease. The whole field is
// FORBIDDEN to everyone else; an attempt of a DELETED conversation is
// NOT_FOUND.
func (r *Resolver) attemptDiagnostics(ctx context.Context, id uuid.UUID) (*model.AttemptDiagnostics, error) {
	a, err := adminreport.Attempt(ctx, r.client, id)
	if err != nil {
		return nil, notFound(err, "attempt")
	}
	return &model.AttemptDiagnostics{
		AttemptID:       a.ID,
		Status:          a.Status,
		ContextManifest: a.ContextManifest,
		Timings:         attemptTimings(a),
		LeaseOwner:      a.LeaseOwner,
		LeaseExpiresAt:  a.LeaseExpiresAt,
	}, nil
}

// attemptTimings returns an attempt's timestamps and durations.
func attemptTimings(a *ent.Attempt) *model.AttemptTimings {
	t := &model.AttemptTimings{StartedAt: a.StartedAt, FirstTokenAt: a.FirstTokenAt, CompletedAt: a.CompletedAt}
	if a.FirstTokenAt != nil {
		ms := int(a.FirstTokenAt.Sub(a.StartedAt).Milliseconds())
		t.TimeToFirstTokenMs = &ms
	}
	if a.CompletedAt != nil {
		ms := int(a.CompletedAt.Sub(a.StartedAt).Milliseconds())
		t.DurationMs = &ms
	}
	return t
}

// documentACLByID is a curator's view of who may read a document. The whole
// field is FORBIDDEN to members; a document the curator cannot see is
// NOT_FOUND.
func (r *Resolver) documentACLByID(ctx context.Context, id uuid.UUID) (*model.DocumentACL, error) {
	d, err := knowledge.DocumentWithGrants(ctx, r.client, id)
	if err != nil {
		return nil, notFound(err, "document")
	}
	acl := &model.DocumentACL{Visibility: d.Visibility, Groups: []string{}, Users: []string{}}
	for _, g := range d.Edges.Grants {
		if g.PrincipalKind == documentgrant.PrincipalKindGROUP {
			acl.Groups = append(acl.Groups, g.Principal)
		} else {
			acl.Users = append(acl.Users, g.Principal)
		}
	}
	return acl, nil
}
