// Package support is delegated support access (internal/support/README.md): a
// support agent requests read access to one
// conversation with a reason; the owner (or an admin, or the tenant
// policy) approves or denies it; the owner, an admin or the agent revokes
// it; it expires. Service runs that workflow, and audits each of its steps
// (support.* events, audit.go). The reads a grant opens are enforced by
// the Ent privacy rules (internal/authz/support.go) and audited per
// conversation by the read audit (internal/readaudit). Every grant an
// operation cannot see, and every expired grant, is NOT_FOUND alike.
package support

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The audit actions of the support grant lifecycle.
const (
	ActionRequested = "support.requested"
	ActionApproved  = "support.approved"
	ActionDenied    = "support.denied"
	ActionRevoked   = "support.revoked"
)

// grantKind names a support grant in NOT_FOUND errors.
const grantKind = "support grant"

// Options configure a Service.
type Options struct {
	// Now is the clock of grant lifetimes (nil: time.Now).
	Now func() time.Time
	// Logger receives audit events that could not be written (nil:
	// slog.Default()).
	Logger *slog.Logger
	// ReasonChars bounds the reason of a request or a denial, in
	// characters after trimming, as the engine bounds a comment
	// (RAGCHAT_MAX_COMMENT_CHARS; zero: domain.DefaultCommentChars).
	ReasonChars int
}

// Service runs the support grant workflow. It is safe for concurrent use.
type Service struct {
	client *ent.Client
	now    func() time.Time
	log    *slog.Logger
	reason domain.TextRule
}

// New returns the workflow on c.
func New(c *ent.Client, o Options) *Service {
	o.Now = defaults.Clock(o.Now)
	o.Logger = defaults.Logger(o.Logger)
	if o.ReasonChars <= 0 {
		o.ReasonChars = domain.DefaultCommentChars
	}
	return &Service{client: c, now: o.Now, log: o.Logger,
		reason: domain.TextRule{Field: "reason", Limit: domain.LimitCommentLength, Max: o.ReasonChars}}
}

// RequestInput is a support agent's request.
type RequestInput struct {
	ConversationID uuid.UUID
	Reason         string
	// Duration is how long the access lasts once approved; nil takes the
	// tenant's SupportGrantDefault. It may not exceed SupportGrantMax.
	Duration *time.Duration
}

// Request files a support agent's request to read one
// conversation of their tenant. It is PENDING until decided, or APPROVED at
// once under the AUTO policy. Only support agents may request (FORBIDDEN);
// a conversation of another tenant, a DELETED one or an unknown id is
// NOT_FOUND alike.
func (s *Service) Request(ctx context.Context, in RequestInput) (*ent.SupportGrant, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	if !v.IsSupport() {
		return nil, domain.Errorf(domain.CodeForbidden, "support role required")
	}
	reason, err := s.reason.Check(in.Reason)
	if err != nil {
		return nil, err
	}
	if reason == "" {
		return nil, domain.BadInput("reason", "a reason is required")
	}
	// The lookup reads which conversation and whose, nothing of its
	// content, and is not an audited read.
	lookup := readaudit.Exempt(authz.SupportRequestLookup(ctx))
	conv, err := s.client.Conversation.Query().Where(conversation.ID(in.ConversationID)).
		Select(conversation.FieldID, conversation.FieldUserID, conversation.FieldStatus).Only(lookup)
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	if conv.Status == conversation.StatusDELETED {
		return nil, domain.NotFound("conversation")
	}
	if conv.UserID == v.UserID {
		return nil, domain.BadInput("conversationId", "you own this conversation")
	}
	st, err := tenantsettings.Effective(ctx, s.client)
	if err != nil {
		return nil, err
	}
	d := st.SupportGrantDefault.Duration
	if in.Duration != nil {
		d = *in.Duration
	}
	if d <= 0 {
		return nil, domain.BadInput("duration", "the duration must be positive")
	}
	if d > st.SupportGrantMax.Duration {
		return nil, domain.BadInput("duration", "the duration must not exceed %s", st.SupportGrantMax.Duration).
			With("max", st.SupportGrantMax.Duration.String())
	}
	d = d.Truncate(time.Second)
	if d <= 0 {
		return nil, domain.BadInput("duration", "the duration must be at least one second")
	}
	now := s.now().UTC()
	create := s.client.SupportGrant.Create().
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
	s.auditGrant(ctx, ActionRequested, g, reason)
	if g.Status == supportgrant.StatusAPPROVED {
		s.auditGrant(ctx, ActionApproved, g, "auto-approved by tenant policy")
	}
	return g, nil
}
