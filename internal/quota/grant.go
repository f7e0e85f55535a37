package quota

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/ent/userquota"
	"github.com/ragchat/ragchat/internal/domain"
)

// The grant statements: one upsert of the user's counter of the period
// that adds to granted. Reserve's conditional upsert reads granted in the
// same row it locks, so a grant and concurrent reservations are ordered
// by the row lock, like reservations among themselves.
const (
	pgGrant = `INSERT INTO usage_counters AS c (id, tenant_id, user_id, period, period_start, used, reserved, granted, updated_at)
VALUES ($1, $2, $3, $4, $5, 0, 0, $6, $7)
ON CONFLICT (tenant_id, user_id, period, period_start) DO UPDATE SET granted = c.granted + excluded.granted, updated_at = excluded.updated_at`
	liteGrant = `INSERT INTO usage_counters AS c (id, tenant_id, user_id, period, period_start, used, reserved, granted, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, 0, 0, ?6, ?7)
ON CONFLICT (tenant_id, user_id, period, period_start) DO UPDATE SET granted = c.granted + excluded.granted, updated_at = excluded.updated_at`
)

// Grant raises user's limit by tokens for the period of q that contains
// now: it appends a GRANT entry (prompt_tokens holds the tokens) and adds
// them to the user's counter, in one transaction. Only the user's limit
// rises; the tenant's still binds. It returns the entry.
func (m *Meter) Grant(ctx context.Context, tenant, user string, q domain.TokenQuota, now time.Time, tokens int64) (*ent.UsageEntry, error) {
	if tokens <= 0 || user == "" {
		return nil, fmt.Errorf("quota: a grant needs a user and positive tokens")
	}
	q = q.WithDefaults()
	start := PeriodStart(q.Period, now)
	tx, err := m.client.Tx(ctx)
	if err != nil {
		return nil, err
	}
	stmt := liteGrant
	if m.postgres {
		stmt = pgGrant
	}
	if _, err := tx.ExecContext(ctx, stmt, uuid.Must(uuid.NewV7()), tenant, user, q.Period, start, tokens, now); err != nil {
		_ = tx.Rollback()
		return nil, fmt.Errorf("quota: %w", err)
	}
	entry, err := tx.UsageEntry.Create().
		SetKind(usageentry.KindGRANT).SetTenantID(tenant).SetUserID(user).
		SetPurpose(usageentry.PurposeANSWER).SetPromptTokens(int(tokens)).
		SetPeriod(q.Period).SetPeriodStart(start).SetCreatedAt(now).
		Save(meterCtx(ctx))
	if err != nil {
		_ = tx.Rollback()
		return nil, fmt.Errorf("usage ledger: %w", err)
	}
	return entry, tx.Commit()
}

// effective returns q with the user's per-user limit replaced by the
// admin's override of it (UserQuota), when there is one: an override
// takes precedence over the tenant's tokenQuotaUserTokens, and 0 means no
// per-user limit. The period, kind and tenant limit stay the tenant's.
func (m *Meter) effective(ctx context.Context, c *ent.Client, tenant, user string, q domain.TokenQuota) (domain.TokenQuota, error) {
	o, err := c.UserQuota.Query().
		Where(userquota.TenantID(tenant), userquota.UserID(user)).
		Only(meterCtx(ctx))
	switch {
	case ent.IsNotFound(err):
		return q, nil
	case err != nil:
		return q, fmt.Errorf("quota: %w", err)
	}
	q.UserTokens = o.Tokens
	return q, nil
}

// Effective is the quota that binds user: q with the admin's override of
// the per-user limit, when there is one.
func (m *Meter) Effective(ctx context.Context, tenant, user string, q domain.TokenQuota) (domain.TokenQuota, error) {
	return m.effective(ctx, m.client, tenant, user, q)
}

// SetOverride sets (tokens non-nil) or removes (nil) the override of
// user's per-user limit in tenant, as the metering job; by is the admin
// who set it. Callers check the admin role (Service.SetUserQuota).
func (m *Meter) SetOverride(ctx context.Context, tenant, user string, tokens *int64, by string, now time.Time) error {
	ctx = meterCtx(ctx)
	if tokens == nil {
		_, err := m.client.UserQuota.Delete().Where(userquota.TenantID(tenant), userquota.UserID(user)).Exec(ctx)
		return err
	}
	return m.client.UserQuota.Create().SetTenantID(tenant).SetUserID(user).SetTokens(*tokens).
		SetUpdatedBy(by).SetUpdatedAt(now).
		OnConflictColumns(userquota.FieldTenantID, userquota.FieldUserID).
		UpdateTokens().UpdateUpdatedBy().UpdateUpdatedAt().
		Exec(ctx)
}
