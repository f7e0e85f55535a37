package askrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/store"
)

// DBLimiter is the Limiter shared by every instance on one database
// (internal/askrate/README.md). Each user's bucket is
// one row of ask_rates holding its theoretical arrival time (TAT) under
// the generic cell rate algorithm (GCRA), which admits exactly what a token
// bucket of the same rate and burst admits:
//
//   - the emission interval T is one minute / PerMinute, the window is
//     Burst × T;
//   - an ask at now moves the TAT to max(TAT, now) + T, and is admitted
//     only if the new TAT is not after now + window;
//   - a refused ask changes nothing and may retry once the TAT has fallen
//     back to now + window − T.
//
// Take is one atomic statement, an upsert whose update is conditional on
// the admission test and which returns the new TAT only when it admits, so
// concurrent asks on any number of instances serialise on the row and
// never exceed the burst. A refusal reads the row once more, only to tell
// the client how long to wait. On PostgreSQL the statement reads the
// database's clock, so the instances' clocks need not agree; SQLite has a
// single writer and uses the application's clock.
//
// The Ent client cannot read or write the table (its privacy policy denies
// everything); the statements here go through the Ent driver, so they run
// on the same connections and are counted and traced like the others.
// When ctx carries an Ent transaction (ent.NewTxContext), Take runs in it:
// the engine charges an ask in the ask's own transaction, so that one which
// creates nothing is not charged. Within a transaction PostgreSQL's now()
// is the transaction's start, a moment earlier.
type DBLimiter struct {
	client   *ent.Client
	postgres bool
	now      func() time.Time
}

var _ Limiter = (*DBLimiter)(nil)

// NewDBLimiter returns the limiter on db. now is the clock on SQLite
// (nil: time.Now); PostgreSQL always uses the database's clock.
func NewDBLimiter(db *store.DB, now func() time.Time) *DBLimiter {
	if now == nil {
		now = time.Now
	}
	return &DBLimiter{client: db.Client, postgres: db.Dialect == dialect.Postgres, now: now}
}

// maxMicros bounds the emission interval and the window, so that a rate
// close to zero (no refill) cannot overflow the arithmetic: about 3,000
// years.
const maxMicros = int64(1) << 56

// gcra is a Rate in the algorithm's units: the emission interval and the
// window, in microseconds.
type gcra struct{ interval, window int64 }

// gcraOf converts r. ok is false when r admits nothing (no burst).
func gcraOf(r Rate) (g gcra, ok bool) {
	if r.Burst <= 0 {
		return gcra{}, false
	}
	interval := float64(maxMicros)
	if r.PerMinute > 0 {
		interval = math.Min(float64(time.Minute/time.Microsecond)/r.PerMinute, float64(maxMicros))
	}
	g.interval = max(int64(interval), 1)
	g.window = int64(math.Min(float64(g.interval)*float64(r.Burst), float64(maxMicros)))
	return g, true
}

// The statements. pgNow is the database clock in microseconds since the
// epoch (now() is the statement's start in autocommit, the same for every
// use within it).
const (
	pgNow  = `CAST(EXTRACT(EPOCH FROM now()) * 1000000 AS bigint)`
	pgTake = `INSERT INTO ask_rates AS r (id, tenant_id, user_id, tat) VALUES ($1, $2, $3, ` + pgNow + ` + $4)
ON CONFLICT (tenant_id, user_id) DO UPDATE SET tat = GREATEST(r.tat, ` + pgNow + `) + $4
WHERE GREATEST(r.tat, ` + pgNow + `) + $4 <= ` + pgNow + ` + $5
RETURNING tat`
	pgRead = `SELECT tat, ` + pgNow + ` FROM ask_rates WHERE tenant_id = $1 AND user_id = $2`
	pgGive = `UPDATE ask_rates SET tat = GREATEST(tat - $3, ` + pgNow + `) WHERE tenant_id = $1 AND user_id = $2`

	// SQLite: ?1…?6 are id, tenant, user, now, interval, window.
	liteTake = `INSERT INTO ask_rates AS r (id, tenant_id, user_id, tat) VALUES (?1, ?2, ?3, ?4 + ?5)
ON CONFLICT (tenant_id, user_id) DO UPDATE SET tat = max(r.tat, ?4) + ?5
WHERE max(r.tat, ?4) + ?5 <= ?4 + ?6
RETURNING tat`
	liteRead = `SELECT tat, ?3 FROM ask_rates WHERE tenant_id = ?1 AND user_id = ?2`
	liteGive = `UPDATE ask_rates SET tat = max(tat - ?3, ?4) WHERE tenant_id = ?1 AND user_id = ?2`
)

// Take implements Limiter: one conditional upsert admits the ask or
// leaves the bucket as it was; a refusal then reads how long to wait.
func (l *DBLimiter) Take(ctx context.Context, key string, r Rate) (time.Duration, error) {
	g, ok := gcraOf(r)
	if !ok {
		return time.Hour, nil // a burst of zero never admits an ask
	}
	tenant, user := splitKey(key)
	// A refusal whose wait is already over (another instance gave an ask
	// back in between) tries once more.
	for try := 0; ; try++ {
		admitted, err := l.take(ctx, tenant, user, g)
		if err != nil || admitted {
			return 0, err
		}
		wait, err := l.wait(ctx, tenant, user, g)
		if err != nil || wait > 0 || try > 0 {
			return max(wait, time.Microsecond), err
		}
	}
}

// ChargesInTx implements Limiter: Take runs in the transaction its
// context carries.
func (l *DBLimiter) ChargesInTx() bool { return true }

// TakeStep implements Limiter: on PostgreSQL, Take's conditional
// upsert, which returns the new TAT only when it admits. A refusal is
// then read by Take. On SQLite, and for a rate that admits nothing, there
// is no step.
func (l *DBLimiter) TakeStep(d, key string, r Rate) (entsql.Querier, bool) {
	g, ok := gcraOf(r)
	if !ok || !l.postgres || d != dialect.Postgres {
		return nil, false
	}
	tenant, user := splitKey(key)
	return entsql.Expr(pgTake, uuid.Must(uuid.NewV7()), tenant, user, g.interval, g.window), true
}

// rowQuerier is what the limiter needs of an Ent client or transaction.
type rowQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// querier is ctx's Ent transaction, if any, else the limiter's client.
func (l *DBLimiter) querier(ctx context.Context) rowQuerier {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return tx
	}
	return l.client
}

// take runs the conditional upsert and reports whether it admitted.
func (l *DBLimiter) take(ctx context.Context, tenant, user string, g gcra) (bool, error) {
	id := uuid.Must(uuid.NewV7())
	var (
		rows *sql.Rows
		err  error
	)
	if l.postgres {
		rows, err = l.querier(ctx).QueryContext(ctx, pgTake, id, tenant, user, g.interval, g.window)
	} else {
		rows, err = l.querier(ctx).QueryContext(ctx, liteTake, id, tenant, user, l.micros(), g.interval, g.window)
	}
	if err != nil {
		return false, fmt.Errorf("ask rate: %w", err)
	}
	defer rows.Close()
	admitted := rows.Next()
	return admitted, errors.Join(rows.Err(), rows.Close())
}

// wait reads the bucket after a refusal: the time until its TAT has fallen
// back far enough to admit one ask.
func (l *DBLimiter) wait(ctx context.Context, tenant, user string, g gcra) (time.Duration, error) {
	var (
		rows *sql.Rows
		err  error
	)
	if l.postgres {
		rows, err = l.querier(ctx).QueryContext(ctx, pgRead, tenant, user)
	} else {
		rows, err = l.querier(ctx).QueryContext(ctx, liteRead, tenant, user, l.micros())
	}
	if err != nil {
		return 0, fmt.Errorf("ask rate: %w", err)
	}
	defer rows.Close()
	var tat, now int64
	if rows.Next() {
		if err := rows.Scan(&tat, &now); err != nil {
			return 0, fmt.Errorf("ask rate: %w", err)
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, fmt.Errorf("ask rate: %w", err)
	}
	return time.Duration(tat+g.interval-g.window-now) * time.Microsecond, nil
}

// Give implements Limiter: it moves the TAT back by one interval, never
// before now (a bucket holds at most its burst). A failure is not
// reported: the ask stays charged, which errs on the safe side.
func (l *DBLimiter) Give(ctx context.Context, key string, r Rate) {
	g, ok := gcraOf(r)
	if !ok {
		return
	}
	tenant, user := splitKey(key)
	if l.postgres {
		_, _ = l.client.ExecContext(ctx, pgGive, tenant, user, g.interval)
	} else {
		_, _ = l.client.ExecContext(ctx, liteGive, tenant, user, g.interval, l.micros())
	}
}

// micros is the application clock in microseconds since the epoch.
func (l *DBLimiter) micros() int64 { return l.now().UnixMicro() }
