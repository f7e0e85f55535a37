package quota

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/usageentry"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Meter writes the usage ledger and keeps the quota counters. Every entry
// is written as the metering job (viewer.JobMeter): no viewer can write
// the ledger through Ent.
type Meter struct {
	client   *ent.Client
	postgres bool
	pricing  Pricing
}

// New returns the meter of db, pricing calls with p (nil: everything is
// free).
func New(db *store.DB, p Pricing) *Meter {
	if p == nil {
		p = StaticPricing{}
	}
	return &Meter{client: db.Client, postgres: db.Dialect == dialect.Postgres, pricing: p}
}

// Pricing returns the meter's prices.
func (m *Meter) Pricing() Pricing { return m.pricing }

// meterCtx is ctx acting as the metering job.
func meterCtx(ctx context.Context) context.Context {
	return viewer.SystemJobContext(ctx, viewer.JobMeter)
}

// The counter statements. Reserving is one conditional upsert per counter:
// it creates the period's row or adds to it only while used + reserved +
// the reservation stays within the limit plus what admins granted
// (granted, always 0 on the tenant's row), and returns the new total
// less the grants; no
// row means refused, and the counter is unchanged. Rows are locked in the
// order tenant, then user, by every statement, so two reservations never
// deadlock.
const (
	pgReserve = `INSERT INTO usage_counters AS c (id, tenant_id, user_id, period, period_start, used, reserved, updated_at)
SELECT $1, $2, $3, $4, $5, 0, $6::bigint, $8 WHERE $6::bigint <= $7::bigint
ON CONFLICT (tenant_id, user_id, period, period_start) DO UPDATE SET reserved = c.reserved + excluded.reserved, updated_at = excluded.updated_at
WHERE c.used + c.reserved + excluded.reserved <= $7::bigint + c.granted
RETURNING c.used + c.reserved - c.granted`
	liteReserve = `INSERT INTO usage_counters AS c (id, tenant_id, user_id, period, period_start, used, reserved, updated_at)
SELECT ?1, ?2, ?3, ?4, ?5, 0, ?6, ?8 WHERE ?6 <= ?7
ON CONFLICT (tenant_id, user_id, period, period_start) DO UPDATE SET reserved = c.reserved + excluded.reserved, updated_at = excluded.updated_at
WHERE c.used + c.reserved + excluded.reserved <= ?7 + c.granted
RETURNING used + reserved - granted`
	pgUse = `INSERT INTO usage_counters AS c (id, tenant_id, user_id, period, period_start, used, reserved, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, 0, $7)
ON CONFLICT (tenant_id, user_id, period, period_start) DO UPDATE SET used = c.used + excluded.used, updated_at = excluded.updated_at`
	liteUse = `INSERT INTO usage_counters AS c (id, tenant_id, user_id, period, period_start, used, reserved, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, ?7)
ON CONFLICT (tenant_id, user_id, period, period_start) DO UPDATE SET used = c.used + excluded.used, updated_at = excluded.updated_at`
	pgClose = `UPDATE usage_counters SET used = used + $1, reserved = reserved - $2, updated_at = $7
WHERE tenant_id = $3 AND user_id IN ('', $4) AND period = $5 AND period_start = $6`
	liteClose = `UPDATE usage_counters SET used = used + ?1, reserved = reserved - ?2, updated_at = ?7
WHERE tenant_id = ?3 AND user_id IN ('', ?4) AND period = ?5 AND period_start = ?6`
	pgRead = `SELECT user_id, used, reserved, granted FROM usage_counters
WHERE tenant_id = $1 AND user_id IN ('', $2) AND period = $3 AND period_start = $4`
	liteRead = `SELECT user_id, used, reserved, granted FROM usage_counters
WHERE tenant_id = ?1 AND user_id IN ('', ?2) AND period = ?3 AND period_start = ?4`
)

// querier is an Ent client or transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Call names one model call for the ledger.
type Call struct {
	TenantID, UserID string
	AttemptID        *uuid.UUID
	Purpose          usageentry.Purpose
	Model            string
	// Profile is the model profile of the call, when profiles exist.
	Profile *string
	// Price is the call's price when it is not the meter's price of
	// Model (a model profile's prices); nil: the meter's.
	Price *Price
}

// Reservation is what Reserve held for a call.
type Reservation struct {
	// Entry is the RESERVE entry, which the SETTLE or REFUND closes.
	Entry *ent.UsageEntry
	// Over reports that a SOFT quota is passed (the call was allowed).
	Over bool
}

// Reserve holds tokens for call in tx under quota q at now (one
// conditional upsert on the tenant's counter, one on the user's, and the
// RESERVE entry). A HARD quota that the reservation would pass is
// QUOTA_EXCEEDED with extensions.resetsAt (RFC 3339) and
// extensions.limit ("tenant" or "user"); the caller must then roll tx back,
// which undoes the other counter's upsert. A SOFT quota always reserves and
// reports Over.
func (m *Meter) Reserve(ctx context.Context, tx *ent.Tx, call Call, q domain.TokenQuota, now time.Time, tokens int64) (*Reservation, error) {
	q, err := m.effective(ctx, tx.Client(), call.TenantID, call.UserID, q)
	if err != nil {
		return nil, err
	}
	q = q.WithDefaults()
	start := PeriodStart(q.Period, now)
	over := false
	for _, c := range []struct {
		user, scope string
		limit       int64
	}{{"", "tenant", q.TenantTokens}, {call.UserID, "user", q.UserTokens}} {
		limit := c.limit
		if limit <= 0 || q.Kind == domain.QuotaSoft {
			limit = math.MaxInt64 / 2
		}
		total, ok, err := m.reserveCounter(ctx, tx, call.TenantID, c.user, q.Period, start, tokens, limit, now)
		if err != nil {
			return nil, err
		}
		if !ok {
			end := PeriodEnd(q.Period, start)
			return nil, domain.Errorf(domain.CodeQuotaExceeded, "the %s token quota of this period is used up; it resets at %s", c.scope, end.Format(time.RFC3339)).
				With("resetsAt", end.Format(time.RFC3339)).With("limit", c.scope)
		}
		if c.limit > 0 && total > c.limit {
			over = true
		}
	}
	entry, err := tx.UsageEntry.Create().
		SetKind(usageentry.KindRESERVE).SetTenantID(call.TenantID).SetUserID(call.UserID).
		SetNillableAttemptID(call.AttemptID).SetPurpose(call.Purpose).SetModel(call.Model).
		SetNillableProfile(call.Profile).SetPromptTokens(int(tokens)).
		SetPeriod(q.Period).SetPeriodStart(start).SetCreatedAt(now).
		Save(meterCtx(ctx))
	if err != nil {
		return nil, fmt.Errorf("usage ledger: %w", err)
	}
	return &Reservation{Entry: entry, Over: over}, nil
}

// ReserveNow is Reserve in a transaction of its own, for a call made
// outside any other (an answer's side call): on QUOTA_EXCEEDED nothing
// is written.
func (m *Meter) ReserveNow(ctx context.Context, call Call, q domain.TokenQuota, now time.Time, tokens int64) (*Reservation, error) {
	tx, err := m.client.Tx(ctx)
	if err != nil {
		return nil, err
	}
	res, err := m.Reserve(ctx, tx, call, q, now, tokens)
	if err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	return res, tx.Commit()
}

// reserveCounter runs the conditional upsert of one counter and returns its
// new used + reserved, or ok false when it refused.
func (m *Meter) reserveCounter(ctx context.Context, q querier, tenant, user, period string, start time.Time, tokens, limit int64, now time.Time) (int64, bool, error) {
	stmt := liteReserve
	if m.postgres {
		stmt = pgReserve
	}
	rows, err := q.QueryContext(ctx, stmt, uuid.Must(uuid.NewV7()), tenant, user, period, start, tokens, limit, now)
	if err != nil {
		return 0, false, fmt.Errorf("quota: %w", err)
	}
	defer rows.Close()
	var total int64
	ok := rows.Next()
	if ok {
		err = rows.Scan(&total)
	}
	return total, ok, errors.Join(err, rows.Err(), rows.Close())
}

// Usage is what a model call consumed.
type Usage struct {
	PromptTokens, CompletionTokens int
}

// Close ends the reservation res with a SETTLE of u (the model reported
// usage; model, when set, names the model that answered, and price, when
// set, is its price instead of the meter's) or, when u is zero, a REFUND,
// in one transaction that also moves the counters (reserved back, used
// forward). A reservation closes once: a second Close finds its SETTLE or
// REFUND and does nothing. It reports whether this call closed it.
func (m *Meter) Close(ctx context.Context, res *ent.UsageEntry, u Usage, model string, price *Price, now time.Time) (bool, error) {
	if model == "" {
		model = res.Model
	}
	kind := usageentry.KindSETTLE
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		kind = usageentry.KindREFUND
	}
	tx, err := m.client.Tx(ctx)
	if err != nil {
		return false, err
	}
	_, err = tx.UsageEntry.Create().
		SetKind(kind).SetTenantID(res.TenantID).SetUserID(res.UserID).
		SetNillableAttemptID(res.AttemptID).SetPurpose(res.Purpose).SetModel(model).
		SetNillableProfile(res.Profile).
		SetPromptTokens(u.PromptTokens).SetCompletionTokens(u.CompletionTokens).
		SetCostMicros(m.cost(ctx, model, price, u)).
		SetPeriod(res.Period).SetNillablePeriodStart(res.PeriodStart).
		SetReservationID(res.ID).SetCreatedAt(now).
		Save(meterCtx(ctx))
	if ent.IsConstraintError(err) {
		_ = tx.Rollback()
		return false, nil // closed already
	}
	if err != nil {
		_ = tx.Rollback()
		return false, fmt.Errorf("usage ledger: %w", err)
	}
	if res.PeriodStart != nil {
		stmt := liteClose
		if m.postgres {
			stmt = pgClose
		}
		used := int64(u.PromptTokens + u.CompletionTokens)
		if _, err := tx.ExecContext(ctx, stmt, used, int64(res.PromptTokens), res.TenantID, res.UserID, res.Period, *res.PeriodStart, now); err != nil {
			_ = tx.Rollback()
			return false, fmt.Errorf("quota: %w", err)
		}
	}
	return true, tx.Commit()
}

// Charge records a call made without a reservation (a rewrite, a title, a
// summary, or an answer while no quota was set) as a SETTLE, and when q
// limits anything adds its tokens to the period's counters, in one
// transaction.
func (m *Meter) Charge(ctx context.Context, call Call, u Usage, q domain.TokenQuota, now time.Time) error {
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return nil
	}
	create := func(c *ent.Client) error {
		return m.settleEntry(ctx, c, call, u, now).Exec(meterCtx(ctx))
	}
	if !q.Enabled() {
		return create(m.client)
	}
	q = q.WithDefaults()
	start := PeriodStart(q.Period, now)
	tx, err := m.client.Tx(ctx)
	if err != nil {
		return err
	}
	if err := create(tx.Client()); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("usage ledger: %w", err)
	}
	stmt := liteUse
	if m.postgres {
		stmt = pgUse
	}
	for _, user := range []string{"", call.UserID} {
		if _, err := tx.ExecContext(ctx, stmt, uuid.Must(uuid.NewV7()), call.TenantID, user, q.Period, start, int64(u.PromptTokens+u.CompletionTokens), now); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("quota: %w", err)
		}
	}
	return tx.Commit()
}

// OpenReservation returns the RESERVE entry of attempt id's answer
// (purpose ANSWER: its side calls' reservations are their own) that no
// SETTLE or REFUND closed yet, or nil.
func (m *Meter) OpenReservation(ctx context.Context, attemptID uuid.UUID) (*ent.UsageEntry, error) {
	return store.Optional(m.client.UsageEntry.Query().
		Where(usageentry.AttemptID(attemptID), usageentry.PurposeEQ(usageentry.PurposeANSWER),
			usageentry.KindEQ(usageentry.KindRESERVE), usageentry.Not(usageentry.HasClosedBy())).
		First(meterCtx(ctx)))
}

// Totals are a tenant's and one of its users' counters in one period.
type Totals struct {
	TenantUsed, TenantReserved int64
	UserUsed, UserReserved     int64
	// UserGranted is what admins granted the user this period.
	UserGranted int64
}

// Read returns the counters of tenant and user for the period of q that
// contains now (zero when none was written).
func (m *Meter) Read(ctx context.Context, tenant, user string, q domain.TokenQuota, now time.Time) (Totals, error) {
	q = q.WithDefaults()
	stmt := liteRead
	if m.postgres {
		stmt = pgRead
	}
	var t Totals
	rows, err := m.client.QueryContext(ctx, stmt, tenant, user, q.Period, PeriodStart(q.Period, now))
	if err != nil {
		return t, fmt.Errorf("quota: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			u                       string
			used, reserved, granted int64
		)
		if err := rows.Scan(&u, &used, &reserved, &granted); err != nil {
			return t, err
		}
		if u == "" {
			t.TenantUsed, t.TenantReserved = used, reserved
		} else {
			t.UserUsed, t.UserReserved, t.UserGranted = used, reserved, granted
		}
	}
	return t, errors.Join(rows.Err(), rows.Close())
}
