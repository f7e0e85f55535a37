package askrate

import (
	"context"
	"fmt"
)

// The sweep's statement: the full buckets of one tenant part, at most
// limit of them. The outer condition is checked again on a row another
// statement changed meanwhile (PostgreSQL re-evaluates it on the row's
// new version), so a bucket that is taken from while the sweep runs
// stays.
const (
	pgSweep = `DELETE FROM ask_rates WHERE tenant_id = $1 AND tat <= ` + pgNow + ` AND id IN (
SELECT id FROM ask_rates WHERE tenant_id = $1 AND tat <= ` + pgNow + ` LIMIT $2)`
	liteSweep = `DELETE FROM ask_rates WHERE tenant_id = ?1 AND tat <= ?2 AND id IN (
SELECT id FROM ask_rates WHERE tenant_id = ?1 AND tat <= ?2 LIMIT ?3)`
)

// SweepIdle deletes at most limit buckets whose key's tenant part (Key)
// is tenant and which are full: their TAT is not after now. A full bucket
// is what Take creates for a key it has never seen, so deleting one
// changes nothing any Take sees; it only stops the rows of keys that came
// once (a client address, a link) from staying for good. It returns how
// many it deleted.
func (l *DBLimiter) SweepIdle(ctx context.Context, tenant string, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	var err error
	var n int64
	if l.postgres {
		n, err = l.exec(ctx, pgSweep, tenant, limit)
	} else {
		n, err = l.exec(ctx, liteSweep, tenant, l.micros(), limit)
	}
	if err != nil {
		return 0, fmt.Errorf("ask rate sweep: %w", err)
	}
	return int(n), nil
}

// exec runs a statement on the limiter's client and returns the rows it
// changed.
func (l *DBLimiter) exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := l.client.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
