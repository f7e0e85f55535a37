package quota

import (
	"context"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/audit"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Limits of the admin's quota operations (docs/API.md, "Quotas and usage").
const (
	// MaxGrantTokens bounds one grant and one override.
	MaxGrantTokens = 1_000_000_000
	// MaxGrantNote bounds a grant's note, in characters.
	MaxGrantNote = 500
)

// GrantInput is an admin's grant of extra tokens to one user.
type GrantInput struct {
	UserID string
	Tokens int64
	Note   string
}

// Grant is a GRANT entry of the usage ledger.
type Grant struct {
	Entry    *ent.UsageEntry
	Note     string
	ResetsAt time.Time
}

// GrantUsage appends a GRANT entry for the current quota period: the user's
// limit rises by in.Tokens until the period ends (the tenant's limit still
// binds). Admins only (FORBIDDEN); tokens outside 1..MaxGrantTokens and an
// over-long note are BAD_USER_INPUT naming the field; a user the tenant
// has never seen (no conversation, no usage), in another tenant or not, is
// NOT_FOUND. The grant is audited (quota.grant).
func (s *Service) GrantUsage(ctx context.Context, in GrantInput) (*Grant, error) {
	v, err := viewer.RequireAdmin(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkQuotaTokens(in.Tokens, 1); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(in.Note) > MaxGrantNote {
		return nil, domain.Errorf(domain.CodeBadUserInput, "the note is longer than %d characters", MaxGrantNote).With("field", "note")
	}
	if err := s.knownUser(ctx, in.UserID); err != nil {
		return nil, err
	}
	st, err := s.settings(ctx)
	if err != nil {
		return nil, err
	}
	q := st.Quota().WithDefaults()
	entry, err := s.meter.Grant(ctx, v.TenantID, in.UserID, q, s.now(), in.Tokens)
	if err != nil {
		return nil, store.DomainError(err, "usage grant")
	}
	audit.Log(ctx, s.client.AuditEvent, s.log, audit.Event{Action: "quota.grant", TargetType: "user", TargetID: in.UserID, Reason: in.Note, Metadata: map[string]string{
		"tokens": strconv.FormatInt(in.Tokens, 10), "period": q.Period, "periodStart": entry.PeriodStart.UTC().Format(time.RFC3339),
	}})
	return &Grant{Entry: entry, Note: in.Note, ResetsAt: PeriodEnd(q.Period, *entry.PeriodStart)}, nil
}

// SetUserQuota sets (tokens non-nil) or removes (nil) the override of one
// user's per-user limit; it takes precedence over tokenQuotaUserTokens
// while the tenant has a token quota, and 0 means no per-user limit.
// Admins only; errors as GrantUsage's. Audited (quota.user.set,
// quota.user.cleared). It returns the override now in force, nil when none.
func (s *Service) SetUserQuota(ctx context.Context, userID string, tokens *int64) (*int64, error) {
	v, err := viewer.RequireAdmin(ctx)
	if err != nil {
		return nil, err
	}
	if tokens != nil {
		if err := checkQuotaTokens(*tokens, 0); err != nil {
			return nil, err
		}
	}
	if err := s.knownUser(ctx, userID); err != nil {
		return nil, err
	}
	if err := s.meter.SetOverride(ctx, v.TenantID, userID, tokens, v.UserID, s.now()); err != nil {
		return nil, store.DomainError(err, "user quota")
	}
	if tokens == nil {
		audit.Log(ctx, s.client.AuditEvent, s.log, audit.Event{Action: "quota.user.cleared", TargetType: "user", TargetID: userID})
		return nil, nil
	}
	audit.Log(ctx, s.client.AuditEvent, s.log, audit.Event{Action: "quota.user.set", TargetType: "user", TargetID: userID, Metadata: map[string]string{"tokens": strconv.FormatInt(*tokens, 10)}})
	return tokens, nil
}

// checkQuotaTokens refuses tokens outside min..MaxGrantTokens.
func checkQuotaTokens(tokens, min int64) error {
	if tokens < min || tokens > MaxGrantTokens {
		return domain.Errorf(domain.CodeBadUserInput, "tokens must be between %d and %d", min, MaxGrantTokens).With("field", "tokens")
	}
	return nil
}

// knownUser is nil when userID has left a trace in the admin's tenant (a
// conversation or a usage entry, read through the privacy filter), and
// NOT_FOUND otherwise: an unknown user and another tenant's are alike.
func (s *Service) knownUser(ctx context.Context, userID string) error {
	if userID == "" || utf8.RuneCountInString(userID) > 128 {
		return domain.NotFound("user")
	}
	ctx = readaudit.Exempt(ctx)
	ok, err := s.client.Conversation.Query().Where(conversation.UserID(userID)).Exist(ctx)
	if err == nil && !ok {
		ok, err = s.client.UsageEntry.Query().Where(usageentry.UserID(userID)).Exist(ctx)
	}
	if err != nil {
		return store.DomainError(err, "user")
	}
	if !ok {
		return domain.NotFound("user")
	}
	return nil
}
