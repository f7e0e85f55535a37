package chat

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Delegated support access (docs/ENGINE.md, "Delegated support access"):
// a support agent requests read access to one conversation with a reason;
// the owner (or an admin, or the tenant policy) approves or denies it; the
// owner, an admin or the agent revokes it; it expires. The reads it opens
// are enforced by the Ent privacy rules (internal/authz/support.go) and
// audited per conversation (readaudit.go, support_audit.go). Every grant
// an operation cannot see, and every expired grant, is NOT_FOUND alike.

// The audit actions of the support grant lifecycle.
const (
	ActionSupportRequested = "support.requested"
	ActionSupportApproved  = "support.approved"
	ActionSupportDenied    = "support.denied"
	ActionSupportRevoked   = "support.revoked"
)

// grantKind names a support grant in NOT_FOUND errors.
const grantKind = "support grant"

// RequestSupportAccessInput is a support agent's request.
type RequestSupportAccessInput struct {
	ConversationID uuid.UUID
	Reason         string
	// Duration is how long the access lasts once approved; nil takes the
	// tenant's SupportGrantDefault. It may not exceed SupportGrantMax.
	Duration *time.Duration
}

// RequestSupportAccess files a support agent's request to read one
// conversation of their tenant. It is PENDING until decided, or APPROVED at
// once under the AUTO policy. Only support agents may request (FORBIDDEN);
// a conversation of another tenant, a DELETED one or an unknown id is
// NOT_FOUND alike.
func (e *Engine) RequestSupportAccess(ctx context.Context, in RequestSupportAccessInput) (*ent.SupportGrant, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	if !v.IsSupport() {
		return nil, domain.Errorf(domain.CodeForbidden, "support role required")
	}
	reason, err := e.checkComment("reason", in.Reason)
	if err != nil {
		return nil, err
	}
	if reason == "" {
		return nil, badInput("reason", "a reason is required")
	}
	// The lookup reads which conversation and whose, nothing of its
	// content, and is not an audited read.
	lookup := withoutReadAudit(authz.SupportRequestLookup(ctx))
	conv, err := e.client.Conversation.Query().Where(conversation.ID(in.ConversationID)).
		Select(conversation.FieldID, conversation.FieldUserID, conversation.FieldStatus).Only(lookup)
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	if conv.Status == conversation.StatusDELETED {
		return nil, domain.NotFound("conversation")
	}
	if conv.UserID == v.UserID {
		return nil, badInput("conversationId", "you own this conversation")
	}
	st, err := e.settings(ctx)
	if err != nil {
		return nil, err
	}
	d := st.SupportGrantDefault.Duration
	if in.Duration != nil {
		d = *in.Duration
	}
	if d <= 0 {
		return nil, badInput("duration", "the duration must be positive")
	}
	if d > st.SupportGrantMax.Duration {
		return nil, badInput("duration", "the duration must not exceed %s", st.SupportGrantMax.Duration).
			With("max", st.SupportGrantMax.Duration.String())
	}
	d = d.Truncate(time.Second)
	if d <= 0 {
		return nil, badInput("duration", "the duration must be at least one second")
	}
	now := e.now().UTC()
	create := e.client.SupportGrant.Create().
		SetConversationID(conv.ID).SetAgentID(v.UserID).SetConversationOwnerID(conv.UserID).
		SetReason(reason).SetDurationSeconds(int64(d / time.Second)).SetExpiresAt(now.Add(d))
	if st.SupportApproval == domain.SupportApprovalAuto {
		create = create.SetStatus(supportgrant.StatusAPPROVED).
			SetDecidedBy("system:auto").SetDecidedAt(now)
	}
	g, err := create.Save(ctx)
	if err != nil {
		return nil, store.DomainError(err, grantKind)
	}
	e.auditGrant(ctx, ActionSupportRequested, g, reason)
	if g.Status == supportgrant.StatusAPPROVED {
		e.auditGrant(ctx, ActionSupportApproved, g, "auto-approved by tenant policy")
	}
	return g, nil
}

// ApproveSupportAccess approves a PENDING request: the owner may, and a
// tenant admin when the policy is OWNER_OR_ADMIN (FORBIDDEN otherwise).
// The access then lasts the requested duration from now.
func (e *Engine) ApproveSupportAccess(ctx context.Context, id uuid.UUID) (*ent.SupportGrant, error) {
	g, err := e.decidableGrant(ctx, id)
	if err != nil {
		return nil, err
	}
	now := e.now().UTC()
	return e.transition(ctx, g, ActionSupportApproved, "", func(u *ent.SupportGrantUpdateOne) {
		u.SetStatus(supportgrant.StatusAPPROVED).SetDecidedBy(viewer.FromContext(ctx).UserID).SetDecidedAt(now).
			SetExpiresAt(now.Add(time.Duration(g.DurationSeconds) * time.Second))
	}, supportgrant.StatusPENDING)
}

// DenySupportAccess denies a PENDING request, with an optional reason;
// who may is as for ApproveSupportAccess.
func (e *Engine) DenySupportAccess(ctx context.Context, id uuid.UUID, reason string) (*ent.SupportGrant, error) {
	reason, err := e.checkComment("reason", reason)
	if err != nil {
		return nil, err
	}
	g, err := e.decidableGrant(ctx, id)
	if err != nil {
		return nil, err
	}
	now := e.now().UTC()
	return e.transition(ctx, g, ActionSupportDenied, reason, func(u *ent.SupportGrantUpdateOne) {
		u.SetStatus(supportgrant.StatusDENIED).SetDecidedBy(viewer.FromContext(ctx).UserID).SetDecidedAt(now)
		if reason != "" {
			u.SetDecisionReason(reason)
		}
	}, supportgrant.StatusPENDING)
}

// RevokeSupportAccess ends a PENDING or APPROVED grant at once: the next
// read under it finds nothing. The owner, a tenant admin or the agent
// may revoke; revoking a grant that already ended (DENIED, REVOKED) returns
// it unchanged.
func (e *Engine) RevokeSupportAccess(ctx context.Context, id uuid.UUID) (*ent.SupportGrant, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	g, err := e.liveGrant(ctx, id)
	if err != nil {
		return nil, err
	}
	if g.Status == supportgrant.StatusDENIED || g.Status == supportgrant.StatusREVOKED {
		return g, nil
	}
	now := e.now().UTC()
	return e.transition(ctx, g, ActionSupportRevoked, "", func(u *ent.SupportGrantUpdateOne) {
		u.SetStatus(supportgrant.StatusREVOKED).SetRevokedBy(v.UserID).SetRevokedAt(now)
	}, supportgrant.StatusPENDING, supportgrant.StatusAPPROVED)
}

// ConversationSupportGrants lists the grants on a conversation the viewer
// may see, newest first: all of them for its owner and admins, their own
// for a support agent, none for anyone else.
func (e *Engine) ConversationSupportGrants(ctx context.Context, conversationID uuid.UUID) ([]*ent.SupportGrant, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	gs, err := e.client.SupportGrant.Query().
		Where(supportgrant.ConversationID(conversationID)).
		Order(ent.Desc(supportgrant.FieldCreatedAt), ent.Desc(supportgrant.FieldID)).
		All(ctx)
	if err != nil {
		return nil, store.DomainError(err, grantKind)
	}
	return gs, nil
}

// GrantState is g's effective state by the engine's clock: its status, or
// EXPIRED for a PENDING or APPROVED grant past expires_at.
func (e *Engine) GrantState(g *ent.SupportGrant) string { return grantState(g, e.now()) }

// grantState is GrantState at now.
func grantState(g *ent.SupportGrant, now time.Time) string {
	if (g.Status == supportgrant.StatusPENDING || g.Status == supportgrant.StatusAPPROVED) && !now.Before(g.ExpiresAt) {
		return "EXPIRED"
	}
	return g.Status.String()
}

// liveGrant loads a grant the viewer may see that has not expired. An
// expired grant is NOT_FOUND, like one that does not exist.
func (e *Engine) liveGrant(ctx context.Context, id uuid.UUID) (*ent.SupportGrant, error) {
	g, err := e.client.SupportGrant.Get(ctx, id)
	if err != nil {
		return nil, store.DomainError(err, grantKind)
	}
	if grantState(g, e.now()) == "EXPIRED" {
		return nil, domain.NotFound(grantKind)
	}
	return g, nil
}

// decidableGrant loads a live grant the viewer may approve or deny under
// the tenant's policy.
func (e *Engine) decidableGrant(ctx context.Context, id uuid.UUID) (*ent.SupportGrant, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	g, err := e.liveGrant(ctx, id)
	if err != nil {
		return nil, err
	}
	if g.ConversationOwnerID == v.UserID {
		return g, nil
	}
	st, err := e.settings(ctx)
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
func (e *Engine) transition(ctx context.Context, g *ent.SupportGrant, action, reason string, set func(*ent.SupportGrantUpdateOne), from ...supportgrant.Status) (*ent.SupportGrant, error) {
	if !statusIn(g.Status, from) {
		return nil, grantConflict(g)
	}
	u := e.client.SupportGrant.UpdateOne(g).Where(supportgrant.StatusIn(from...))
	set(u)
	out, err := u.Save(ctx)
	if ent.IsNotFound(err) {
		if cur, gerr := e.client.SupportGrant.Get(ctx, g.ID); gerr == nil {
			return nil, grantConflict(cur)
		}
	}
	if err != nil {
		return nil, store.DomainError(err, grantKind)
	}
	e.auditGrant(ctx, action, out, reason)
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

// auditGrant writes the audit event of a lifecycle step of g.
func (e *Engine) auditGrant(ctx context.Context, action string, g *ent.SupportGrant, reason string) {
	e.audit(ctx, action, "SupportGrant", g.ID.String(), reason, map[string]string{
		"conversation": g.ConversationID.String(),
		"agent":        g.AgentID,
		"owner":        g.ConversationOwnerID,
		"expiresAt":    g.ExpiresAt.UTC().Format(time.RFC3339),
	})
}
