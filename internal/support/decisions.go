package support

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/audit"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Approve approves a PENDING request: the owner may, and a
// tenant admin when the policy is OWNER_OR_ADMIN (FORBIDDEN otherwise).
// The access then lasts the requested duration from now.
func (s *Service) Approve(ctx context.Context, id uuid.UUID) (*ent.SupportGrant, error) {
	g, err := s.decidableGrant(ctx, id)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	return s.transition(ctx, g, ActionApproved, "", func(u *ent.SupportGrantUpdateOne) {
		u.SetStatus(supportgrant.StatusAPPROVED).SetDecidedBy(viewer.FromContext(ctx).UserID).SetDecidedAt(now).
			SetExpiresAt(now.Add(time.Duration(g.DurationSeconds) * time.Second))
	}, supportgrant.StatusPENDING)
}

// Deny denies a PENDING request, with an optional reason; who may is as
// for Approve.
func (s *Service) Deny(ctx context.Context, id uuid.UUID, reason string) (*ent.SupportGrant, error) {
	reason, err := s.reason.Check(reason)
	if err != nil {
		return nil, err
	}
	g, err := s.decidableGrant(ctx, id)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	return s.transition(ctx, g, ActionDenied, reason, func(u *ent.SupportGrantUpdateOne) {
		u.SetStatus(supportgrant.StatusDENIED).SetDecidedBy(viewer.FromContext(ctx).UserID).SetDecidedAt(now)
		if reason != "" {
			u.SetDecisionReason(reason)
		}
	}, supportgrant.StatusPENDING)
}

// Revoke ends a PENDING or APPROVED grant at once: the next
// read under it finds nothing. The owner, a tenant admin or the agent
// may revoke; revoking a grant that already ended (DENIED, REVOKED) returns
// it unchanged.
func (s *Service) Revoke(ctx context.Context, id uuid.UUID) (*ent.SupportGrant, error) {
	v, g, err := s.liveGrant(ctx, id)
	if err != nil {
		return nil, err
	}
	if g.Status == supportgrant.StatusDENIED || g.Status == supportgrant.StatusREVOKED {
		return g, nil
	}
	now := s.now().UTC()
	return s.transition(ctx, g, ActionRevoked, "", func(u *ent.SupportGrantUpdateOne) {
		u.SetStatus(supportgrant.StatusREVOKED).SetRevokedBy(v.UserID).SetRevokedAt(now)
	}, supportgrant.StatusPENDING, supportgrant.StatusAPPROVED)
}

// decidableGrant loads a live grant the viewer may approve or deny under
// the tenant's policy.
func (s *Service) decidableGrant(ctx context.Context, id uuid.UUID) (*ent.SupportGrant, error) {
	v, g, err := s.liveGrant(ctx, id)
	if err != nil {
		return nil, err
	}
	if g.ConversationOwnerID == v.UserID {
		return g, nil
	}
	st, err := tenantsettings.Effective(ctx, s.client)
	if err != nil {
		return nil, err
	}
	if v.IsAdmin() && st.SupportApproval == domain.SupportApprovalOwnerOrAdmin {
		return g, nil
	}
	if v.IsAdmin() {
		return nil, domain.Errorf(domain.CodeForbidden, "the tenant policy %s lets only the conversation's owner decide", st.SupportApproval)
	}
	return nil, domain.Errorf(domain.CodeForbidden, "only the conversation's owner decides on a support request")
}

// transition applies set to g if its status is still one of from, and
// audits the change; a concurrent change answers CONFLICT with the
// current status.
func (s *Service) transition(ctx context.Context, g *ent.SupportGrant, action, reason string, set func(*ent.SupportGrantUpdateOne), from ...supportgrant.Status) (*ent.SupportGrant, error) {
	if !statusIn(g.Status, from) {
		return nil, grantConflict(g)
	}
	u := s.client.SupportGrant.UpdateOne(g).Where(supportgrant.StatusIn(from...))
	set(u)
	out, err := u.Save(ctx)
	if ent.IsNotFound(err) {
		if cur, gerr := s.client.SupportGrant.Get(ctx, g.ID); gerr == nil {
			return nil, grantConflict(cur)
		}
	}
	if err != nil {
		return nil, store.DomainError(err, grantKind)
	}
	s.auditGrant(ctx, action, out, reason)
	return out, nil
}

func statusIn(s supportgrant.Status, in []supportgrant.Status) bool {
	for _, x := range in {
		if s == x {
			return true
		}
	}
	return false
}

// grantConflict is the CONFLICT of a decision on a grant that is no longer
// in a state that allows it.
func grantConflict(g *ent.SupportGrant) error {
	return domain.Errorf(domain.CodeConflict, "the support grant is %s", strings.ToLower(g.Status.String())).
		With("status", g.Status.String())
}

// auditGrant writes the audit event of a lifecycle step of g as the
// viewer. Failing to audit is logged, never hidden; the step it describes
// has already happened.
func (s *Service) auditGrant(ctx context.Context, action string, g *ent.SupportGrant, reason string) {
	audit.Log(ctx, s.client.AuditEvent, s.log, audit.Event{
		Action: action, TargetType: "SupportGrant", TargetID: g.ID.String(), Reason: reason,
		Metadata: map[string]string{
			"conversation": g.ConversationID.String(),
			"agent":        g.AgentID,
			"owner":        g.ConversationOwnerID,
			"expiresAt":    g.ExpiresAt.UTC().Format(time.RFC3339),
		},
	})
}
