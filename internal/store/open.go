package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/lib/pq"    // PostgreSQL driver.
	_ "modernc.org/sqlite" // Pure-Go SQLite driver ("sqlite").

	"github.com/ragchat/ragchat/ent"
	_ "github.com/ragchat/ragchat/ent/runtime" // Privacy policies and hooks.
	"github.com/ragchat/ragchat/internal/convsearch"
)

// DB is an open database: the Ent client, the raw pool and its dialect.
type DB struct {
	Client  *ent.Client
	SQL     *sql.DB
	Dialect string
	// stmts counts the statements the client sends (Statements).
	stmts *atomic.Uint64
	// Session is what every pooled connection starts with (PostgreSQL;
	// see session.go). Wrappers of a DB copy it along with the pool.
	Session Session
	// cache is the client's prepared-statement cache (PostgreSQL), for
	// CacheSizes.
	cache *stmtCache
}

// Close closes the client and the pool.
func (db *DB) Close() error { return db.Client.Close() }

// Open connects to the database cfg selects, waits for it to accept
// connections (up to cfg.WaitTimeout), checks pgvector on PostgreSQL and, if
// cfg.Migrate is set, applies pending migrations.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	cfg = cfg.WithDefaults()
	var (
		db  *DB
		err error
	)
	if cfg.IsPostgres() {
		db, err = openPostgres(ctx, cfg)
	} else {
		db, err = openSQLite(ctx, cfg)
	}
	if err != nil {
		return nil, err
	}
	return db, nil
}

func openPostgres(ctx context.Context, cfg Config) (*DB, error) {
	pqcfg, err := pq.NewConfig(cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("store: invalid DATABASE_URL %s: %w", RedactedURL(cfg.DatabaseURL), err)
	}
	session := withSession(&pqcfg)
	connector, err := pq.NewConnectorConfig(pqcfg)
	if err != nil {
		return nil, fmt.Errorf("store: invalid DATABASE_URL %s: %w", RedactedURL(cfg.DatabaseURL), err)
	}
	pool := sql.OpenDB(connector)
	pool.SetMaxOpenConns(cfg.MaxOpenConns)
	pool.SetMaxIdleConns(cfg.MaxIdleConns)
	pool.SetConnMaxLifetime(cfg.ConnMaxLifetime)
	pool.SetConnMaxIdleTime(cfg.ConnMaxIdleTime)
	if err := waitForDatabase(ctx, pool, cfg.WaitTimeout); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: PostgreSQL at %s is unreachable after %s: %w", RedactedURL(cfg.DatabaseURL), cfg.WaitTimeout, err)
	}
	if cfg.Migrate {
		if err := MigratePostgres(ctx, pool); err != nil {
			pool.Close()
			return nil, err
		}
	}
	if err := checkPgvector(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	n := &atomic.Uint64{}
	drv := newPreparingDriver(dialect.Postgres, pool, n)
	return &DB{Client: NewClient(drv, dialect.Postgres), SQL: pool, Dialect: dialect.Postgres, stmts: n, Session: session, cache: drv.cache}, nil
}

func openSQLite(ctx context.Context, cfg Config) (*DB, error) {
	if dir := filepath.Dir(cfg.SQLitePath); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("store: create %s: %w", dir, err)
		}
	}
	return OpenSQLiteDSN(ctx, SQLiteDSN(cfg.SQLitePath), cfg.Migrate)
}

// OpenSQLiteDSN opens SQLite with an explicit DSN (tests use it for
// throwaway files) and, if migrate is set, creates the schema.
func OpenSQLiteDSN(ctx context.Context, dsn string, migrate bool) (*DB, error) {
	pool, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open SQLite: %w", err)
	}
	// One writer at a time is SQLite's model; a small pool keeps readers
	// concurrent under WAL without piling up writers on the busy timeout.
	pool.SetMaxOpenConns(8)
	pool.SetMaxIdleConns(8)
	if err := pool.PingContext(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: open SQLite: %w", err)
	}
	n := &atomic.Uint64{}
	drv := newCountingDriver(entsql.OpenDB(dialect.SQLite, pool), n)
	db := &DB{Client: NewClient(drv, dialect.SQLite), SQL: pool, Dialect: dialect.SQLite, stmts: n}
	if migrate {
		if err := MigrateSQLite(ctx, db.Client); err != nil {
			pool.Close()
			return nil, err
		}
	}
	if _, err := seedSQLitePlannerStats(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// NewClient opens the Ent client on drv with the store's hooks: the
// conversation search index (convsearch.Install) is kept by every write.
// Every client of a store database is made here (wrappers of a DB's driver
// too), so that no write misses the hooks.
func NewClient(drv dialect.Driver, dialectName string) *ent.Client {
	c := ent.NewClient(ent.Driver(drv))
	c.Intercept(markEntityQueries())
	convsearch.Install(c, dialectName)
	return c
}

// waitForDatabase pings pool until it answers or timeout passes, backing
// off between tries.
func waitForDatabase(ctx context.Context, pool *sql.DB, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	delay := 100 * time.Millisecond
	for {
		err := pool.PingContext(ctx)
		if err == nil {
			return nil
		}
		if isPermanentConnError(err) {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		delay = min(delay*2, 2*time.Second)
	}
}

// isPermanentConnError reports errors that waiting will not fix: bad
// credentials or a database that does not exist.
func isPermanentConnError(err error) bool {
	msg := err.Error()
	for _, s := range []string{"password authentication failed", "does not exist", "no pg_hba.conf entry", "role \""} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// ErrPgvectorMissing reports that the vector extension is neither installed
// in the database nor available on the server.
var ErrPgvectorMissing = errors.New("the pgvector extension is not available on this PostgreSQL server: install pgvector (Debian: build the pgvector source package, see README) and run `ragchat migrate up`")

// checkPgvector verifies that the vector extension is installed.
func checkPgvector(ctx context.Context, pool *sql.DB) error {
	var installed bool
	err := pool.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')`).Scan(&installed)
	if err != nil {
		return fmt.Errorf("store: check pgvector: %w", err)
	}
	if installed {
		return nil
	}
	var available bool
	if err := pool.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Scan(&available); err != nil {
		return fmt.Errorf("store: check pgvector: %w", err)
	}
	if !available {
		return fmt.Errorf("store: %w", ErrPgvectorMissing)
	}
	return errors.New("store: the vector extension is available but not installed in this database: run `ragchat migrate up`")
}
