// Package store opens ragchat's database (PostgreSQL with pgvector, or the
// embedded SQLite default), applies migrations and returns the Ent client
// (open.go, migrate.go, session.go), with prepared statements cached per
// connection (stmtcache.go) and every statement counted, per process and
// per request tally (stmtcount.go). It is also the one owner of what a
// database error means: Classify and DomainError map a storage error to a
// domain error class, IsTransient tells a retryable failure
// (errors.go, transient.go). NodeType finds the type of a node id among
// the rows the viewer may see, in one statement (nodetype.go).
package store

import (
	"cmp"
	"fmt"
	"net/url"
	"time"

	"github.com/ragchat/ragchat/internal/defaults"
)

// Config selects and tunes the database.
type Config struct {
	// DatabaseURL is a PostgreSQL URL (postgres://…). Empty selects SQLite.
	DatabaseURL string
	// SQLitePath is the SQLite file used when DatabaseURL is empty.
	SQLitePath string
	// MaxOpenConns, MaxIdleConns, ConnMaxLifetime and ConnMaxIdleTime tune
	// the connection pool (PostgreSQL; SQLite uses its own small pool).
	MaxOpenConns    int
	MaxIdleConns    int
	ConnMaxLifetime time.Duration
	ConnMaxIdleTime time.Duration
	// WaitTimeout bounds how long Open waits for the database to accept
	// connections at startup.
	WaitTimeout time.Duration
	// Migrate applies pending migrations on Open (versioned SQL files on
	// PostgreSQL, Ent auto-migration on SQLite).
	Migrate bool
}

// WithDefaults fills the zero fields of c.
func (c Config) WithDefaults() Config {
	c.SQLitePath = cmp.Or(c.SQLitePath, "./data/ragchat.db")
	c.MaxOpenConns = defaults.Positive(c.MaxOpenConns, 20)
	c.MaxIdleConns = defaults.Positive(c.MaxIdleConns, 10)
	c.ConnMaxLifetime = defaults.Positive(c.ConnMaxLifetime, 30*time.Minute)
	c.ConnMaxIdleTime = defaults.Positive(c.ConnMaxIdleTime, 5*time.Minute)
	c.WaitTimeout = defaults.Positive(c.WaitTimeout, 30*time.Second)
	return c
}

// IsPostgres reports whether c selects PostgreSQL.
func (c Config) IsPostgres() bool { return c.DatabaseURL != "" }

// RedactedURL returns the database URL with its password hidden, for logs
// and error messages.
func RedactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(unparseable database URL)"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.Redacted()
}

// SQLiteDSN returns the modernc.org/sqlite DSN for path: foreign keys on,
// a busy timeout so concurrent writers wait instead of failing, WAL for
// concurrent readers, and immediate transactions so that two writers never
// deadlock upgrading read locks.
func SQLiteDSN(path string) string {
	return fmt.Sprintf("file:%s?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate", path)
}
